package sandbox

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/catalog"
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
	for _, id := range []string{"narrator_01", catalog.SystemVoices[0].ID} {
		status, hdr, raw := h.call(http.MethodPost, api.OpAudioClone.Path(), clone(id, ""), nil)
		rejection(t, status, hdr, raw, http.StatusConflict, api.ReasonConflict, "voice_id")
	}
	status, hdr, raw := h.call(http.MethodPost, api.OpAudioClone.Path(), clone("1bad", ""), nil)
	rejection(t, status, hdr, raw, http.StatusBadRequest, "", "voice_id")
}

func TestSystemVoicesSpeakBeforeAnyCloning(t *testing.T) {
	h := newHarness(t, Config{})
	for _, sv := range catalog.SystemVoices {
		v := sv.ID
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

// The spec: a cloned voice "is deleted unless it is used in speech
// synthesis within 168 hours". A use at 167h59m keeps it for good; a voice
// not used by 168h is gone, and a use one second later fails as an unknown
// voice would, saving nothing.
func TestVoicesUsedWithin168HoursAreKept(t *testing.T) {
	h := newHarness(t, Config{})
	h.create(api.OpAudioClone, clone("kept_voice", "Preview use does not count."))
	h.create(api.OpAudioClone, clone("idle_voice", ""))
	h.advance(167*time.Hour + 59*time.Minute)
	if m := h.create(api.OpAudioTTS, speak("kept_voice")); m["state"] != api.StateSuccess {
		t.Fatalf("TTS within 168 h: %v", m)
	}
	h.advance(time.Minute + time.Second)
	m := h.create(api.OpAudioTTS, speak("idle_voice"))
	if m["state"] != api.StateFailed || m["err_code"] != api.ReasonFieldInvalid || m["file_url"] != "" {
		t.Errorf("a voice unused for 168 h still speaks: %v", m)
	}
	if r := h.get(m["task_id"].(string)); r.ErrCode != api.ReasonFieldInvalid || r.Credits != 0 {
		t.Errorf("too late a use: %+v", r)
	}
	// The kept voice no longer counts down: no 168 h restart at each use.
	for range 3 {
		h.advance(400 * time.Hour)
		if m := h.create(api.OpAudioTTS, speak("kept_voice")); m["state"] != api.StateSuccess {
			t.Fatalf("a kept voice was deleted: %v", m)
		}
	}
	status, hdr, raw := h.call(http.MethodPost, api.OpAudioClone.Path(), clone("kept_voice", ""), nil)
	rejection(t, status, hdr, raw, http.StatusConflict, api.ReasonConflict, "voice_id")
	// A deleted id is free again.
	if m := h.create(api.OpAudioClone, clone("idle_voice", "")); m["state"] != api.StateSuccess {
		t.Errorf("re-cloning a deleted id: %v", m)
	}
}

// A state file written before voices could be kept: a voice used since its
// cloning (last_used after created_at) was used in time, since the file
// still holds it; one never used keeps counting down from its cloning.
func TestOldStateFileVoicesUsedAreKept(t *testing.T) {
	st, err := decodeState([]byte(`{"seed":1,"voices":{
		"used_voice":{"id":"used_voice","created_at":"2026-01-01T00:00:00Z","last_used":"2026-01-05T00:00:00Z"},
		"idle_voice":{"id":"idle_voice","created_at":"2026-01-01T00:00:00Z","last_used":"2026-01-01T00:00:00Z"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Voices["used_voice"].Kept || st.Voices["idle_voice"].Kept {
		t.Errorf("kept: used %v idle %v", st.Voices["used_voice"].Kept, st.Voices["idle_voice"].Kept)
	}
	st.advance(time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC), 5)
	if _, ok := st.Voices["idle_voice"]; ok {
		t.Error("an idle voice outlived its 168 h")
	}
	if _, ok := st.Voices["used_voice"]; !ok {
		t.Error("a used voice was deleted")
	}
}
