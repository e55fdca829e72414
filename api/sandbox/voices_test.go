package sandbox

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"clapper/api"
)

func clone(id, text string) map[string]any {
	m := map[string]any{"audio_url": "https://example.com/v.mp3", "voice_id": id}
	if text != "" {
		m["text"] = text
	}
	return m
}

func speak(voiceID string) map[string]any {
	return map[string]any{"text": "Good morning. <#0.5#> How are you?", "voice_setting_voice_id": voiceID}
}

func TestCloneRegistersAVoiceWithPreview(t *testing.T) {
	h := newHarness(t, Config{})
	m := h.create(api.OpAudioClone, clone("narrator_01", "A short preview."))
	if m["state"] != api.StateSuccess || m["voice_id"] != "narrator_01" {
		t.Fatalf("clone = %v", m)
	}
	code, b := h.fetch(m["demo_audio"].(string))
	if code != http.StatusOK || !bytes.HasPrefix(b, []byte("RIFF")) {
		t.Errorf("demo audio: HTTP %d, %d bytes", code, len(b))
	}
	if r := h.get(m["task_id"].(string)); r.State != api.StateSuccess || len(r.Creations) != 1 {
		t.Errorf("clone result = %+v", r)
	}
	// Without text there is no preview.
	m = h.create(api.OpAudioClone, clone("narrator_02", ""))
	if m["demo_audio"] != "" {
		t.Errorf("demo_audio = %v without text", m["demo_audio"])
	}
	tts := h.create(api.OpAudioTTS, speak("narrator_01"))
	if tts["state"] != api.StateSuccess || tts["file_url"] == "" || tts["credits"].(float64) <= 0 {
		t.Fatalf("tts = %v", tts)
	}
	code, b = h.fetch(tts["file_url"].(string))
	if code != http.StatusOK || !bytes.HasPrefix(b, []byte("RIFF")) {
		t.Errorf("speech: HTTP %d, %d bytes", code, len(b))
	}
}

func TestDuplicateVoiceIDConflicts(t *testing.T) {
	h := newHarness(t, Config{})
	h.create(api.OpAudioClone, clone("narrator_01", ""))
	for _, id := range []string{"narrator_01", SystemVoices[0]} {
		status, hdr, raw := h.call(http.MethodPost, api.OpAudioClone.Path(), clone(id, ""), nil)
		rejection(t, status, hdr, raw, http.StatusConflict, api.ReasonConflict, "voice_id")
	}
	status, hdr, raw := h.call(http.MethodPost, api.OpAudioClone.Path(), clone("1bad", ""), nil)
	rejection(t, status, hdr, raw, http.StatusBadRequest, "", "voice_id")
}

func TestSystemVoicesSpeakBeforeAnyCloning(t *testing.T) {
	h := newHarness(t, Config{})
	for _, v := range SystemVoices {
		if m := h.create(api.OpAudioTTS, speak(v)); m["state"] != api.StateSuccess {
			t.Errorf("%s: %v", v, m)
		}
	}
	m := h.create(api.OpAudioTTS, speak("nobody_here"))
	if m["state"] != api.StateFailed || m["err_code"] == "" || m["file_url"] != "" {
		t.Errorf("TTS with an unknown voice = %v, want failed", m)
	}
	if r := h.get(m["task_id"].(string)); r.State != api.StateFailed || r.ErrCode == "" || r.Credits != 0 {
		t.Errorf("result = %+v", r)
	}
}

func TestVoicesUnusedFor168HoursAreDeleted(t *testing.T) {
	h := newHarness(t, Config{})
	h.create(api.OpAudioClone, clone("kept_voice", "Preview use does not count."))
	h.create(api.OpAudioClone, clone("idle_voice", ""))
	h.advance(167 * time.Hour)
	if m := h.create(api.OpAudioTTS, speak("kept_voice")); m["state"] != api.StateSuccess {
		t.Fatalf("TTS within 168 h: %v", m)
	}
	h.advance(time.Hour)
	if m := h.create(api.OpAudioTTS, speak("idle_voice")); m["state"] != api.StateFailed {
		t.Errorf("a voice unused for 168 h still speaks: %v", m)
	}
	// Use renewed the other voice's 168 hours.
	h.advance(166 * time.Hour)
	if m := h.create(api.OpAudioTTS, speak("kept_voice")); m["state"] != api.StateSuccess {
		t.Errorf("a voice used 167 h ago was deleted: %v", m)
	}
	// A deleted id is free again.
	if m := h.create(api.OpAudioClone, clone("idle_voice", "")); m["state"] != api.StateSuccess {
		t.Errorf("re-cloning a deleted id: %v", m)
	}
}
