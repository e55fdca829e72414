package studio_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// The embedded sandbox keeps its tasks between runs: a task created by
// one command is still there, still progressing, in the next.
func TestEmbeddedSandboxKeepsItsTasksBetweenRuns(t *testing.T) {
	isolated(t)
	cfg := resolved(t, studio.Config{})
	clk := sandbox.NewFakeClock(wiringT0)
	open := func() *studio.Studio {
		t.Helper()
		s, err := studio.Open(context.Background(), cfg, studio.Options{SendOnly: true, Sandbox: &sandbox.Config{Clock: clk, Seed: 3}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	sub, err := s.Send(context.Background(), api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open()
	defer s.Close()
	clk.Advance(time.Hour)
	res, err := s.Service().Get(context.Background(), sub.Task.Identifier())
	if err != nil || res.State != api.StateSuccess {
		t.Errorf("the next run's sandbox reads the task as %v, %v; want it there and finished", res, err)
	}
}

// bodyRecorder is a live service that keeps each creation's body.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (b *bodyRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	b.mu.Lock()
	b.bodies = append(b.bodies, body)
	b.mu.Unlock()
	w.Write([]byte(`{"task_id":"t1","state":"created","credits":1,"created_at":"2026-11-26T12:00:00Z"}`))
}

// With callbacks configured, a studio that follows what it sends asks the
// service to call back; one that only sends (or has none configured) does
// not, as nobody would take the call.
func TestCallbackURLIsSentOnlyWhenSomeoneListens(t *testing.T) {
	for _, c := range []struct {
		name      string
		callbacks bool
		sendOnly  bool
		want      bool
	}{
		{"callbacks, following", true, false, true},
		{"callbacks, send only", true, true, false},
		{"no callbacks", false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			isolated(t)
			svc := &bodyRecorder{}
			srv := httptest.NewServer(svc)
			defer srv.Close()
			cfg := studio.Config{APIKey: "key-0123456789", BaseURL: srv.URL}
			if c.callbacks {
				cfg.CallbackListen, cfg.CallbackURL = "127.0.0.1:0", "https://hooks.example.com/clapper"
			}
			s, err := studio.Open(context.Background(), resolved(t, cfg), studio.Options{SendOnly: c.sendOnly})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Send(context.Background(), api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p"}); err != nil {
				t.Fatal(err)
			}
			got, sent := svc.bodies[0]["callback_url"]
			if sent != c.want || sent && got != "https://hooks.example.com/clapper" {
				t.Errorf("callback_url in the request: %v (%v), want sent %v", got, sent, c.want)
			}
		})
	}
}

// A set started in the background of a studio that was not started is
// refused, as is a second run of a set already running; a run that ends
// well leaves no note that it stopped.
func TestStartSetRules(t *testing.T) {
	isolated(t)
	ctx := context.Background()
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, resolved(t, studio.Config{}), clk)
	reqs := []studio.SetRequest{{Line: 1, Op: api.OpAudioTTS, Body: map[string]any{"text": "Hello there.", "voice_setting_voice_id": "male-qn-qingse"}}}
	id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", "speech", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err == nil {
		t.Error("a set started on a studio that was not started")
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notes []string
	run := s.NewSetRun(id, "variations", reqs)
	run.Note = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, format)
	}
	hold := make(chan struct{})
	run.Progress = func(studio.SetProgress) { <-hold }
	if err := s.StartSet(run); err != nil {
		t.Fatal(err)
	}
	if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err == nil {
		t.Error("a second run of a running set was started")
	}
	close(hold)
	deadline := time.Now().Add(10 * time.Second)
	for s.SetActivity(id).Running && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || notes[0] != "%s%s: task %s (#%d) %s" {
		t.Errorf("notes of a set that ended well: %q", notes)
	}
	// The front end hears of the set's send as of any other.
	members, err := s.Record().SetMembers(ctx, id)
	if err != nil || len(members) != 1 || members[0].LocalID == 0 {
		t.Fatalf("the set's line in history: %+v, %v", members, err)
	}
	task, err := s.Record().Task(ctx, members[0].LocalID)
	if err != nil {
		t.Fatal(err)
	}
	var seen []track.Event
	for {
		select {
		case ev := <-s.Events():
			seen = append(seen, ev)
			// (The sandbox fails a speech now and then: either end will do.)
			if ev.Kind == track.EventState && ev.TaskID == task.TaskID && ev.To == task.State {
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event for task %s (%s) sent by the set; saw %+v", task.TaskID, task.State, seen)
		}
	}
}
