package studio

import (
	"context"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// The live service publishes no prices: the review shows what the same
// request cost last time, or says it does not know, never a made-up figure.
func TestLiveQuoteIsLastTimeOrUnknown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := history.Open(dir + "/h.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s := &Studio{Config: Config{APIKey: "k", BaseURL: "https://svc.example"}, store: store, life: context.Background()}
	body := map[string]any{"model": "svcq3-pro", "prompt": "fox", "duration": 8}
	if q := s.Quote(api.OpText2Video, body); !strings.HasPrefix(q, "unknown") {
		t.Fatalf("no history: quote %q, want unknown", q)
	}
	seed := func(req string, credits int64) {
		t.Helper()
		id, err := store.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(req)})
		if err != nil {
			t.Fatal(err)
		}
		taskID := "t" + strings.Repeat("1", int(credits%7)+1)
		if err := store.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: taskID, State: api.StateSuccess, Credits: credits, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	seed(`{"model":"svcq3-pro","prompt":"a","duration":5}`, 40)   // another duration
	seed(`{"model":"svcq3-pro","prompt":"b","duration":8}`, 64)   // the same
	seed(`{"model":"svcq3-turbo","prompt":"c","duration":8}`, 41) // another model
	q := s.Quote(api.OpText2Video, body)
	if !strings.HasPrefix(q, "64 credits last time") {
		t.Fatalf("quote %q, want the 64 credits of the same model and duration, labelled", q)
	}
	// The default duration (5) matches a past request that set 5 explicitly.
	if q := s.Quote(api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "x"}); !strings.HasPrefix(q, "40 credits last time") {
		t.Fatalf("default duration: quote %q, want 40 credits", q)
	}
}

// One credit reads "1 credit".
func TestQuoteOfOneCreditIsSingular(t *testing.T) {
	ctx := context.Background()
	store, err := history.Open(t.TempDir() + "/h.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s := &Studio{Config: Config{APIKey: "k", BaseURL: "https://svc.example"}, store: store, life: context.Background()}
	id, err := store.BeginSubmit(ctx, record.Intent{Operation: api.OpAudioTTS, Body: []byte(`{"text":"hi","voice_setting_voice_id":"v"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "t1", State: api.StateSuccess, Credits: 1, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if q := s.Quote(api.OpAudioTTS, map[string]any{"text": "hello", "voice_setting_voice_id": "v"}); !strings.HasPrefix(q, "1 credit last time") {
		t.Fatalf("quote %q, want 1 credit", q)
	}
}
