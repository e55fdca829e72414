package studio_test

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// A request of unknown outcome attached to a task that has already
// finished at the service takes that task's end: its state, its results
// and its credits, read at once, rather than staying "created" (a settled
// state given to the watcher was never read).
func TestAttachToAFinishedTaskTakesItsEnd(t *testing.T) {
	isolated(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := sandbox.NewFakeClock(wiringT0)
	base, _, stop, err := sandbox.Listen(ctx, "", sandbox.Config{Clock: clk, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, err := api.NewClient(base, "k-attach")
	if err != nil {
		t.Fatal(err)
	}
	made, err := c.Create(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Minute)
	if r, err := c.Get(ctx, made.TaskID); err != nil || r.State != api.StateSuccess {
		t.Fatalf("the task at the service: %+v, %v", r, err)
	}

	cfg := resolved(t, studio.Config{BaseURL: base, APIKey: "k-attach"})
	s, err := studio.Open(ctx, cfg, studio.Options{Clock: clk.Now, Watcher: track.WatcherOptions{Clock: clk}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	lid, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Model: "svcq2",
		Body: []byte(`{"model":"svcq2","prompt":"a lighthouse"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().StopSending(ctx, lid); err != nil {
		t.Fatal(err)
	}
	unknown, err := s.Record().Task(ctx, lid)
	if err != nil {
		t.Fatal(err)
	}
	if state, err := s.Attach(ctx, unknown, made.TaskID); err != nil || state != api.StateSuccess {
		t.Fatalf("Attach: %q, %v; want success", state, err)
	}
	// Read at once: the clock does not move while the test waits.
	for ended := false; !ended; {
		select {
		case ev := <-s.Events():
			ended = ev.TaskID == made.TaskID && ev.Kind == track.EventState && api.IsTerminal(ev.To)
		case <-time.After(20 * time.Second): // a hang guard: the read is at once
			t.Fatal("the attached task was not read at once")
		}
	}
	got, err := s.Record().TaskByID(ctx, made.TaskID)
	if err != nil || got.State != api.StateSuccess || len(got.Creations) == 0 {
		t.Errorf("the attached request: %s with %d results (%v), want success with its image", got.State, len(got.Creations), err)
	}
}
