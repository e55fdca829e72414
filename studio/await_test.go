package studio_test

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

func openFollowing(t *testing.T) *studio.Studio {
	t.Helper()
	clk := sandbox.NewFakeClock(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	cfg := studio.Config{DataDir: t.TempDir(), Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4}
	s, err := studio.Open(context.Background(), cfg, studio.Options{Clock: clk.Now, Sandbox: &sandbox.Config{Clock: clk, Seed: 11},
		Watcher: studio.WatcherOptions{Clock: clk}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A reader of every event that is busy (clapper watch saving a file) never
// stalls the downloads it waits for: their progress reaches the relay
// whether or not the reader takes it.
func TestAwaitAllReaderBusyDoesNotStallDownloads(t *testing.T) {
	s := openFollowing(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := s.AwaitAll(ctx) // never read until the end
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 500 {
			s.PublishForTest(studio.Event{Kind: studio.EventDownload, TaskID: "t1", Download: &record.Download{Bytes: int64(i)}})
		}
		// A state change after them still arrives.
		s.PublishForTest(studio.Event{Kind: studio.EventState, TaskID: "t1", To: api.StateSuccess})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // a hang guard
		t.Fatal("500 download events blocked on a reader that is busy")
	}
	for ev := range events {
		if ev.Kind == studio.EventState {
			return
		}
	}
	t.Fatal("the state change never arrived")
}

// Await streams one task's events and ends after its final state; another
// task's events are not in it.
func TestAwaitEndsWithTheFinalState(t *testing.T) {
	s := openFollowing(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	events := s.Await(ctx, record.Task{TaskID: "mine", Operation: api.OpText2Video, Model: "svcq1", State: api.StateProcessing})
	s.PublishForTest(studio.Event{Kind: studio.EventState, TaskID: "other", To: api.StateSuccess})
	s.PublishForTest(studio.Event{Kind: studio.EventState, TaskID: "mine", To: api.StateProcessing})
	s.PublishForTest(studio.Event{Kind: studio.EventState, TaskID: "mine", To: api.StateFailed})
	var got []string
	for ev := range events {
		if ev.TaskID != "mine" {
			t.Errorf("another task's event in the stream: %+v", ev)
		}
		got = append(got, ev.To)
	}
	// The watcher may report the task too; the stream ends at its end.
	if ctx.Err() != nil || len(got) < 2 || got[len(got)-1] != api.StateFailed {
		t.Fatalf("stream %v (ctx %v), want processing, then failed and the end", got, ctx.Err())
	}
}
