package track

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
)

// handlerTransport serves requests with an in-process handler: the
// simulation measures the watcher, not the loopback stack.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// pollingResult is what a way of polling cost and how late it learned.
type pollingResult struct {
	tasks    int
	requests int
	delays   []time.Duration // server state change -> client knows, per change
}

func (r pollingResult) perTask() float64 { return float64(r.requests) / float64(r.tasks) }

func (r pollingResult) median() time.Duration {
	d := slices.Clone(r.delays)
	slices.Sort(d)
	return d[len(d)/2]
}

// serverChange is one state change the sandbox made, with its time.
type serverChange struct {
	id, state string
	at        time.Time
}

// simulate submits n tasks (two a second) to a sandbox on a fake clock,
// follows them with the watcher until all are done, and measures it next to
// a plain poller that reads every task every 5 seconds from its creation,
// computed on the same server timeline (polls change nothing on the server).
func simulate(tb testing.TB, n int) (adaptive, fixed pollingResult) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	clk := sandbox.NewFakeClock(t0)
	srv, err := sandbox.New(sandbox.Config{Clock: clk, Seed: 42})
	if err != nil {
		tb.Fatal(err)
	}
	defer srv.Close()
	client, _ := api.NewClient("http://sandbox.test", "tok", api.WithHTTPClient(&http.Client{Transport: handlerTransport{srv}}))
	store, err := history.Open(filepath.Join(tb.TempDir(), "h.db"), history.WithClock(clk.Now))
	if err != nil {
		tb.Fatal(err)
	}
	defer store.Close()
	tr := &Tracker{Client: client, Store: store, Clock: clk}
	w := NewWatcher(client, store, WatcherOptions{Clock: clk})

	const every = 500 * time.Millisecond
	submitted := map[string]time.Time{}
	seen := map[string]time.Time{} // id/state -> when the client learned it
	for i := 0; ; {
		now := clk.Now()
		for ; i < n && !t0.Add(time.Duration(i)*every).After(now); i++ {
			sub, err := tr.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-turbo", "prompt": fmt.Sprint("scene ", i)})
			if err != nil {
				tb.Fatal(err)
			}
			id := sub.Task.Identifier()
			submitted[id] = now
			seen[id+"/"+api.StateCreated] = now
			w.Watch(id, api.OpText2Video, "svcq3-turbo", sub.Task.State, now)
		}
		wake := w.Step(ctx)
		for _, e := range drain(w) {
			if e.Kind == EventState {
				seen[e.TaskID+"/"+e.To] = e.At
			}
		}
		if i >= n && wake.IsZero() {
			break
		}
		next := wake
		if sub := t0.Add(time.Duration(i) * every); i < n && (next.IsZero() || sub.Before(next)) {
			next = sub
		}
		clk.Set(next)
	}
	changes := serverTimeline(tb, srv)
	adaptive = pollingResult{tasks: n, requests: w.Requests()}
	fixed = pollingResult{tasks: n}
	const period = 5 * time.Second
	for id, created := range submitted {
		var end time.Time
		for _, c := range changes[id] {
			// Learned when this state or a later one was first seen.
			learned := time.Time{}
			for _, later := range laterStates(c.state) {
				if at, ok := seen[id+"/"+later]; ok && (learned.IsZero() || at.Before(learned)) {
					learned = at
				}
			}
			if learned.IsZero() {
				tb.Fatalf("task %s: the watcher never learned %s", id, c.state)
			}
			adaptive.delays = append(adaptive.delays, learned.Sub(c.at))
			k := (c.at.Sub(created) + period - 1) / period
			fixed.delays = append(fixed.delays, created.Add(k*period).Sub(c.at))
			if api.IsTerminal(c.state) {
				end = c.at
			}
		}
		fixed.requests += int((end.Sub(created) + period - 1) / period)
	}
	return adaptive, fixed
}

func laterStates(state string) []string {
	order := []string{api.StateQueueing, api.StateProcessing, api.StateSuccess, api.StateFailed}
	i := slices.Index(order, state)
	if i < 0 {
		return []string{state}
	}
	return order[i:]
}

// serverTimeline reads when the sandbox moved each task to each state.
func serverTimeline(tb testing.TB, srv http.Handler) map[string][]serverChange {
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/_sandbox/tasks", nil))
	var list []struct {
		ID        string    `json:"id"`
		State     string    `json:"state"`
		QueuedAt  time.Time `json:"queued_at"`
		StartedAt time.Time `json:"started_at"`
		EndedAt   time.Time `json:"ended_at"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		tb.Fatal(err)
	}
	out := map[string][]serverChange{}
	for _, e := range list {
		for _, c := range []serverChange{{e.ID, api.StateQueueing, e.QueuedAt}, {e.ID, api.StateProcessing, e.StartedAt}, {e.ID, e.State, e.EndedAt}} {
			if !c.at.IsZero() {
				out[e.ID] = append(out[e.ID], c)
			}
		}
	}
	return out
}

// The adaptive watcher reads at most half as often as a plain 5-second
// poller and learns of changes no later, on the median.
func TestWatcherBeatsFixedPoller(t *testing.T) {
	adaptive, fixed := simulate(t, 100)
	t.Logf("adaptive: %.1f requests/task, median delay %v; fixed 5 s: %.1f requests/task, median delay %v",
		adaptive.perTask(), adaptive.median(), fixed.perTask(), fixed.median())
	if adaptive.perTask() > fixed.perTask()/2 {
		t.Errorf("adaptive %.1f requests/task, more than half of fixed %.1f", adaptive.perTask(), fixed.perTask())
	}
	if adaptive.median() > fixed.median() {
		t.Errorf("adaptive median delay %v, worse than fixed %v", adaptive.median(), fixed.median())
	}
}

func BenchmarkWatcher1000Tasks(b *testing.B) {
	var adaptive, fixed pollingResult
	for b.Loop() {
		adaptive, fixed = simulate(b, 1000)
	}
	b.ReportMetric(adaptive.perTask(), "req/task")
	b.ReportMetric(adaptive.median().Seconds(), "median-delay-s")
	b.ReportMetric(fixed.perTask(), "fixed5s-req/task")
	b.ReportMetric(fixed.median().Seconds(), "fixed5s-median-delay-s")
}

// inFlightStore hands the watcher a fixed list of tasks to follow; nothing
// else of the store is used by Load.
type inFlightStore struct {
	Store
	tasks []record.Task
}

func (s inFlightStore) FollowableSince(context.Context, int64) ([]record.Task, int64, error) {
	return s.tasks, 1, nil
}

// Following the tasks an earlier run left in flight costs the same per
// task however many there are (target: 20,000 under 0.1 s): the queue in
// front of each task is counted without walking every other task.
func BenchmarkWatcherLoad(b *testing.B) {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	client, _ := api.NewClient("http://sandbox.test", "tok")
	for _, n := range []int{1_000, 20_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			tasks := make([]record.Task, n)
			for i := range tasks {
				state := api.StateQueueing
				if i%4 == 0 {
					state = api.StateProcessing
				}
				tasks[i] = record.Task{TaskID: fmt.Sprintf("t%06d", i), Operation: api.OpText2Video, Model: "svcq3",
					State: state, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
			}
			store := inFlightStore{tasks: tasks}
			for b.Loop() {
				w := NewWatcher(client, store, WatcherOptions{Clock: sandbox.NewFakeClock(t0.Add(time.Duration(n) * time.Second))})
				if err := w.Load(context.Background()); err != nil {
					b.Fatal(err)
				}
				if w.Watching() != n {
					b.Fatalf("following %d of %d", w.Watching(), n)
				}
			}
		})
	}
}
