package track

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// A request being sent is of unknown outcome once its sender has not beaten
// for more than IntentStale: exactly IntentStale after the beat it is still
// being sent. UnknownAt names that moment.
func TestOutcomeUnknownRightAfterIntentStale(t *testing.T) {
	sending := record.Task{State: record.StateSubmitting, Sender: Sender(), SenderBeat: t0}
	if OutcomeUnknown(sending, t0.Add(IntentStale)) {
		t.Error("unknown exactly IntentStale after the last beat")
	}
	if !OutcomeUnknown(sending, t0.Add(IntentStale+time.Nanosecond)) {
		t.Error("still being sent past IntentStale without a beat")
	}
	if at := UnknownAt(sending); !at.Equal(t0.Add(IntentStale)) {
		t.Errorf("UnknownAt %v, want %v", at, t0.Add(IntentStale))
	}
	for _, gone := range []record.Task{
		{State: record.StateSubmitting},
		{State: record.StateSubmitting, Sender: hostname() + "/999999999/x", SenderBeat: t0},
		{State: api.StateCreated, Sender: Sender(), SenderBeat: t0},
	} {
		if at := UnknownAt(gone); !at.IsZero() {
			t.Errorf("UnknownAt(%+v) = %v, want none: nobody is sending it", gone, at)
		}
	}
}

// A watcher checks the poller lease every third of it: when the poller
// stops, another watcher reads from the service within a lease and a third
// of it, not minutes later.
func TestPollingIsTakenOverWithinALease(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	first, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(5 * time.Second)}, 1)
	svc.states[ids[0]] = []string{"processing"}
	second := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: every(5 * time.Second)})
	if err := second.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	first.Step(context.Background()) // claims the lease, reads, then stops
	claimed, before := clk.Now(), svc.reads[ids[0]]
	for svc.reads[ids[0]] == before {
		if clk.Now().Sub(claimed) > pollerLease+pollerLease/3+5*time.Second {
			t.Fatalf("nobody read for %v after the poller stopped", clk.Now().Sub(claimed))
		}
		clk.Advance(5 * time.Second)
		second.Step(context.Background())
	}
}

// lockstep steps every watcher each 5 s until cond holds or an hour passed,
// and returns each watcher's events.
func lockstep(t *testing.T, clk interface{ Advance(time.Duration) }, cond func() bool, ws ...*Watcher) [][]Event {
	t.Helper()
	events := make([][]Event, len(ws))
	for i := 0; i < 720 && !cond(); i++ {
		clk.Advance(5 * time.Second)
		for j, w := range ws {
			w.Step(context.Background())
			events[j] = append(events[j], drain(w)...)
		}
	}
	if !cond() {
		t.Fatal("the condition never held")
	}
	return events
}

// A watcher that follows through the history reports what the poller
// recorded, results included, and stops following a task the poller found
// lost.
func TestFollowerReportsResultsAndLosses(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	poller, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(5 * time.Second)}, 3)
	svc.states[ids[0]] = []string{"processing", "success"} // ids[1] answers 404 TaskNotFound
	svc.states[ids[2]] = []string{"processing"}            // read every 5 s: the poller keeps its lease
	follower := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: every(5 * time.Second)})
	if err := follower.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	poller.Step(context.Background()) // it claims the lease first
	events := lockstep(t, clk, func() bool { return follower.Watching() == 1 }, poller, follower)
	var success *api.TaskResult
	lost := false
	for _, e := range events[1] {
		if e.TaskID == ids[0] && e.To == api.StateSuccess {
			success = e.Result
		}
		lost = lost || e.Kind == EventLost && e.TaskID == ids[1]
		if e.Kind == EventPollFailed {
			t.Errorf("the follower read %s from the service itself: %v", e.TaskID, e.Err)
		}
	}
	if success == nil || len(success.Creations) != 1 || success.Creations[0].URL == "" {
		t.Errorf("the follower reported success with result %+v, want its creation", success)
	}
	if !lost {
		t.Error("the follower did not report the task the poller lost")
	}
}

// The poller follows the tasks other processes sent as it renews its lease.
func TestPollerPicksUpTasksSentElsewhere(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	poller, _ := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(5 * time.Second)}, 1)
	clk.Advance(5 * time.Second)
	poller.Step(context.Background())
	other := &Tracker{Client: c, Store: store, Clock: clk} // another process's clapper create
	if _, err := other.Submit(context.Background(), api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "p"}); err != nil {
		t.Fatal(err)
	}
	lockstep(t, clk, func() bool { return poller.Watching() == 2 }, poller)
}
