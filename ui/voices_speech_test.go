package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// The Voices page shows a voice kept the moment a speech synthesis that
// used it succeeds: the event is of another operation (audio-tts), yet it
// changes the library the page shows.
func TestVoicesPageShowsAVoiceKeptBySpeech(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 120, 30, []testVoice{{id: "fresh_narrator", ago: 2 * time.Hour}}, &now)
	if row := lineWith(screen(m), "fresh_narrator"); !strings.Contains(row, "6d 22h left") {
		t.Fatalf("the voice is not counting down before the speech: %q\n%s", row, screen(m))
	}
	ctx := context.Background()
	store := m.env.store()
	local, err := store.BeginSubmit(ctx, record.Intent{Operation: api.OpAudioTTS,
		Body: []byte(`{"text":"hello","voice_setting_voice_id":"fresh_narrator"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.MarkSubmitted(ctx, local, record.SubmittedEcho{TaskID: "tts-1", State: api.StateSuccess, CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := store.RecordVoiceUse(ctx, "tts-1"); err != nil {
		t.Fatal(err)
	}
	send(m, studioEventMsg{track.Event{Kind: track.EventState, TaskID: "tts-1", Operation: api.OpAudioTTS, From: api.StateProcessing, To: api.StateSuccess}})
	if row := lineWith(screen(m), "fresh_narrator"); !strings.Contains(row, "kept") {
		t.Errorf("after the speech that used it, the voice's row reads %q, want it kept\n%s", row, screen(m))
	}
}
