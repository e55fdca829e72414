package track

import (
	"container/heap"
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
)

// The default request budget is four reads a second, of which two seconds'
// worth (eight) may go at once after a quiet spell.
func TestDefaultBudgetIsFourReadsASecond(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 20)
	for _, id := range ids {
		svc.states[id] = []string{"processing"}
	}
	clk.Set(t0.Add(5 * time.Second)) // every first read is due (4 s ± 10%)
	next := w.Step(context.Background())
	if got := w.Requests(); got != 8 {
		t.Fatalf("%d reads at once, want a burst of 8", got)
	}
	if d := next.Sub(clk.Now()); d != 250*time.Millisecond {
		t.Errorf("the next read waits %v for the budget, want a quarter second", d)
	}
	clk.Set(clk.Now().Add(time.Second))
	w.Step(context.Background())
	if got := w.Requests(); got != 12 {
		t.Errorf("%d reads after one more second, want 8 + 4", got)
	}
}

// A budget of one read a second still allows a burst of two, and a burst
// given is taken as given.
func TestBudgetBurstFollowsTheRate(t *testing.T) {
	for _, c := range []struct {
		o    WatcherOptions
		want int
	}{
		{WatcherOptions{RequestsPerSecond: 1}, 2},
		{WatcherOptions{RequestsPerSecond: 0.2}, 1},
		{WatcherOptions{RequestsPerSecond: 10, Burst: 3}, 3},
	} {
		svc := newService()
		cl, store, clk := setup(t, svc)
		w, ids := watch(t, svc, cl, store, clk, c.o, 5)
		for _, id := range ids {
			svc.states[id] = []string{"processing"}
		}
		clk.Set(t0.Add(5 * time.Second))
		w.Step(context.Background())
		if got := w.Requests(); got != c.want {
			t.Errorf("%+v: %d reads at once, want %d", c.o, got, c.want)
		}
	}
}

// hourly is a schedule that reads nothing for an hour unless woken.
func hourly() *Schedule {
	return &Schedule{FirstPoll: time.Hour, MinInterval: time.Hour, MaxInterval: time.Hour,
		QueueCheckMin: time.Hour, QueueCheckMax: time.Hour, Slots: 5}
}

// A callback for a task not followed yet is remembered for one minute: a
// task followed 59 s later is read at once, one followed a minute later is
// not.
func TestEarlyCallbackIsKeptForExactlyAMinute(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w := NewWatcher(c, store, WatcherOptions{Schedule: hourly(), Clock: clk})
	svc.states["t1"] = []string{"processing"}
	svc.states["t2"] = []string{"processing"}
	w.Wake("t1")
	w.Wake("t2")
	clk.Advance(59 * time.Second)
	w.Watch("t1", api.OpReference2Image, "svcq2", api.StateCreated, clk.Now())
	clk.Advance(time.Second)
	w.Watch("t2", api.OpReference2Image, "svcq2", api.StateCreated, clk.Now())
	w.Step(context.Background())
	if svc.reads["t1"] != 1 || svc.reads["t2"] != 0 {
		t.Errorf("reads %v; want t1 (followed 59 s after its callback) only", svc.reads)
	}
}

// At most 256 early callbacks are kept; once full, those a minute old are
// forgotten to make room, and none younger is.
func TestEarlyCallbacksAreBounded(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w := NewWatcher(c, store, WatcherOptions{Schedule: hourly(), Clock: clk})
	for i := range 255 {
		w.Wake("old" + string(rune('A'+i%26)) + string(rune('a'+i/26)))
	}
	w.Wake("young") // the 256th: the cache is full
	clk.Advance(time.Second)
	w.Wake("refused") // full of callbacks younger than a minute: not kept
	clk.Advance(time.Minute - time.Second)
	w.Wake("late") // the first 256 are a minute old now: forgotten, room made
	for _, id := range []string{"young", "refused", "late"} {
		svc.states[id] = []string{"processing"}
		w.Watch(id, api.OpReference2Image, "svcq2", api.StateCreated, clk.Now())
	}
	w.Step(context.Background())
	if svc.reads["young"] != 0 || svc.reads["refused"] != 0 || svc.reads["late"] != 1 {
		t.Errorf("reads %v; want only late (room made by forgetting the old)", svc.reads)
	}
}

// Zero limits take the callback server's defaults: 10 s to read a request,
// 30 s for an idle keep-alive connection.
func TestCallbackServerDefaults(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := ServeCallbacks(ln, &Receiver{}, CallbackLimits{})
	defer srv.Close()
	want := http.Server{ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second}
	if srv.ReadHeaderTimeout != want.ReadHeaderTimeout || srv.ReadTimeout != want.ReadTimeout ||
		srv.WriteTimeout != want.WriteTimeout || srv.IdleTimeout != want.IdleTimeout {
		t.Errorf("timeouts read header %v, read %v, write %v, idle %v; want 10 s, 10 s, 10 s, 30 s",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
}

// readNow makes a followed task due now, steps the watcher once and
// returns the events.
func readNow(t *testing.T, w *Watcher, id string) []Event {
	t.Helper()
	w.mu.Lock()
	task, ok := w.tasks[id]
	if ok {
		task.next = w.clock.Now()
		heap.Fix(&w.queue, task.index)
	}
	w.mu.Unlock()
	if !ok {
		t.Fatalf("%s is not followed", id)
	}
	w.Step(context.Background())
	return drain(w)
}

// lostIn reports whether the events lose task id.
func lostIn(events []Event, id string) bool {
	return slices.ContainsFunc(events, func(e Event) bool { return e.Kind == EventLost && e.TaskID == id })
}

// Without a record in history (a task it does not hold) the watcher's own
// answers decide, by the same rule: at least three TaskNotFound answers in
// a row, spanning at least ten minutes.
func TestTaskUnknownToHistoryIsLostByTheSameRule(t *testing.T) {
	svc := newService() // no states: every read is a 404 TaskNotFound
	c, store, clk := setup(t, svc)
	follow := func(id string) *Watcher {
		w := NewWatcher(c, store, WatcherOptions{Clock: clk})
		w.Watch(id, api.OpReference2Image, "svcq2", api.StateCreated, clk.Now())
		return w
	}
	start := clk.Now()
	spanned := follow("ghost1")
	for _, r := range []struct {
		at   time.Duration
		lost bool
	}{{0, false}, {time.Second, false}, {LostWindow - time.Second, false}, {LostWindow, true}} {
		clk.Set(start.Add(r.at))
		if got := lostIn(readNow(t, spanned, "ghost1"), "ghost1"); got != r.lost {
			t.Errorf("404s from 0 to %v: lost %v, want %v", r.at, got, r.lost)
		}
	}
	clk.Set(start)
	counted := follow("ghost2")
	for _, r := range []struct {
		at   time.Duration
		lost bool
	}{{0, false}, {LostWindow, false}, {LostWindow + time.Second, true}} {
		clk.Set(start.Add(r.at))
		if got := lostIn(readNow(t, counted, "ghost2"), "ghost2"); got != r.lost {
			t.Errorf("404 number %v at %v: lost %v, want %v", r, r.at, got, r.lost)
		}
	}
}

// clearCounter counts the watcher's writes that end a run of 404s, the
// first of which fails.
type clearCounter struct {
	*history.Store
	calls int
}

func (s *clearCounter) ClearNotFound(ctx context.Context, taskID string) error {
	s.calls++
	if s.calls == 1 {
		return errors.New("database is locked")
	}
	return s.Store.ClearNotFound(ctx, taskID)
}

// An answer ends the task's run of 404s in history once: a failed write is
// tried again at the next answer, a done one is not repeated at every read.
func TestAnswerEndsTheNotFoundRunOnce(t *testing.T) {
	svc := newService()
	c, hs, clk := setup(t, svc)
	store := &clearCounter{Store: hs}
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	sub, err := tr.Submit(context.Background(), api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "p"})
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.Identifier()
	svc.states[id] = []string{"processing"}
	w := NewWatcher(c, store, WatcherOptions{Clock: clk})
	w.Watch(id, api.OpReference2Image, "svcq2", api.StateCreated, clk.Now())
	for range 5 {
		readNow(t, w, id)
	}
	if store.calls != 2 {
		t.Errorf("%d writes ending the 404 run over 5 answers, want 2 (one failed, one done)", store.calls)
	}
}

// A failed read without Retry-After backs off that task only: nothing is
// paused and no pause is announced.
func TestFailureWithoutRetryAfterPausesNothing(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 2)
	svc.status[ids[0]] = 503
	svc.states[ids[1]] = []string{"processing"}
	for _, e := range readNow(t, w, ids[0]) {
		if e.Kind == EventPaused {
			t.Errorf("a 503 without Retry-After announced a pause until %v", e.Until)
		}
	}
	if readNow(t, w, ids[1]); svc.reads[ids[1]] != 1 {
		t.Errorf("the other task was read %d times right after the 503, want 1", svc.reads[ids[1]])
	}
}
