package track

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// speechService answers audio-tts with the next of answers (a state), and
// every read of a task with success.
func speechService(answers ...string) *service {
	svc := newService()
	svc.create = func(w http.ResponseWriter) bool {
		svc.next++
		id := fmt.Sprintf("s%d", svc.next)
		state := answers[0]
		if len(answers) > 1 {
			answers = answers[1:]
		}
		svc.states[id] = []string{api.StateSuccess}
		fmt.Fprintf(w, `{"task_id":%q,"state":%q,"file_url":"","credits":1,"created_at":%q}`, id, state, t0.Add(time.Hour).Format(time.RFC3339Nano))
		return true
	}
	return svc
}

func voiceOf(t *testing.T, store *history.Store, id string) record.Voice {
	t.Helper()
	vs, err := store.Voices(context.Background())
	if err != nil || len(vs) == 0 {
		t.Fatalf("voices %v %v", vs, err)
	}
	for _, v := range vs {
		if v.VoiceID == id {
			return v
		}
	}
	t.Fatalf("no voice %s", id)
	return record.Voice{}
}

func say(voiceID string) map[string]any {
	return map[string]any{"text": "hello", "voice_setting_voice_id": voiceID}
}

// Only a synthesis that succeeded uses a voice: a failed one, or one still
// queued, keeps nothing.
func TestSpeechRecordsTheVoiceUseOnlyOnSuccess(t *testing.T) {
	svc := speechService(api.StateFailed, api.StateQueueing, api.StateSuccess)
	c, store, clk := setup(t, svc)
	if err := store.RecordVoice(context.Background(), record.Voice{VoiceID: "narrator01", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	for _, want := range []string{api.StateFailed, api.StateQueueing} {
		sub, err := tr.Submit(context.Background(), api.OpAudioTTS, say("narrator01"))
		if err != nil || sub.Warning != nil || sub.Task.State != want {
			t.Fatalf("submit: %+v %v", sub, err)
		}
		if v := voiceOf(t, store, "narrator01"); v.Kept || !v.LastUsedAt.IsZero() {
			t.Fatalf("a %s synthesis used the voice: %+v", want, v)
		}
	}
	sub, err := tr.Submit(context.Background(), api.OpAudioTTS, say("narrator01"))
	if err != nil || sub.Warning != nil {
		t.Fatalf("submit: %+v %v", sub, err)
	}
	if v := voiceOf(t, store, "narrator01"); !v.Kept || !v.LastUsedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("a successful synthesis did not keep the voice: %+v", v)
	}
	// A system voice is not tracked, and that is no warning.
	if sub, err := tr.Submit(context.Background(), api.OpAudioTTS, say("professional_host")); err != nil || sub.Warning != nil {
		t.Errorf("system voice: %+v %v", sub, err)
	}
}

// A synthesis that answered queueing is followed by the watcher, and its
// success, seen later, records the use at the task's creation: in time, so
// the voice is kept though the success came after the 168 h.
func TestQueuedSpeechRecordsTheVoiceUseWhenItSucceeds(t *testing.T) {
	svc := speechService(api.StateQueueing)
	c, store, clk := setup(t, svc)
	if err := store.RecordVoice(context.Background(), record.Voice{VoiceID: "narrator01", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	if _, err := tr.Submit(context.Background(), api.OpAudioTTS, say("narrator01")); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.Add(200 * time.Hour))
	w := NewWatcher(c, store, WatcherOptions{Clock: clk})
	if err := w.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w.Watching() != 1 {
		t.Fatal("a queued synthesis is not followed")
	}
	events := run(t, w, clk, clk.Now().Add(time.Hour))
	if len(events) != 1 || events[0].To != api.StateSuccess {
		t.Fatalf("events %+v", events)
	}
	if v := voiceOf(t, store, "narrator01"); !v.Kept || !v.LastUsedAt.Equal(t0.Add(time.Hour)) || v.Expired(clk.Now()) {
		t.Errorf("the queued synthesis's success did not keep the voice: %+v", v)
	}
}
