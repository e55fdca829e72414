package track

import (
	"context"
	"testing"
	"time"

	"clapper/api"
)

// Issue 19.17: three watchers that follow everything on one history (three
// clapper watch, or a TUI and two watch) share the polling: one of them
// reads from the service, the others follow through the history, and every
// one of them still reports each change.
func TestWatchersOfOneHistoryPollOnce(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	first, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 12)
	for _, id := range ids {
		svc.states[id] = []string{"processing", "processing", "success"}
	}
	watchers := []*Watcher{first}
	for range 2 {
		w := NewWatcher(c, store, WatcherOptions{Clock: clk})
		if err := w.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		watchers = append(watchers, w)
	}
	done := make([]map[string]bool, len(watchers))
	for i := range done {
		done[i] = map[string]bool{}
	}
	for step := 0; step < 5000 && clk.Now().Before(t0.Add(time.Hour)); step++ {
		var next time.Time
		for i, w := range watchers {
			n := w.Step(context.Background())
			for _, e := range drain(w) {
				if e.Kind == EventState && e.To == api.StateSuccess {
					done[i][e.TaskID] = true
				}
			}
			if !n.IsZero() && (next.IsZero() || n.Before(next)) {
				next = n
			}
		}
		if next.IsZero() {
			break
		}
		clk.Set(next)
	}
	for i := range watchers {
		if len(done[i]) != len(ids) {
			t.Errorf("watcher %d saw %d of %d tasks succeed", i+1, len(done[i]), len(ids))
		}
	}
	reads := 0
	for _, id := range ids {
		reads += svc.reads[id]
	}
	// Three scripted answers a task: one poller reads each about three
	// times; three pollers would read each about nine.
	if reads > 4*len(ids) {
		t.Errorf("%d reads for %d tasks: more than one watcher reads from the service", reads, len(ids))
	}
}

// Issue 19.17: when the poller stops (its process ends or hangs), another
// watcher takes over once its lease lapses.
func TestAnotherWatcherTakesOverThePolling(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	first, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	svc.states[ids[0]] = []string{"processing"}
	second := NewWatcher(c, store, WatcherOptions{Clock: clk})
	second.Load(context.Background())
	clk.Set(first.Step(context.Background()))
	first.Step(context.Background()) // the first holds the lease and reads
	before := svc.reads[ids[0]]
	if before == 0 {
		t.Fatal("nobody read")
	}
	// The first stops; the second reads once the lease has lapsed.
	for clk.Now().Before(t0.Add(5 * time.Minute)) {
		next := second.Step(context.Background())
		if next.IsZero() {
			break
		}
		clk.Set(next)
	}
	if svc.reads[ids[0]] == before {
		t.Error("the second watcher never took over the polling")
	}
}
