package track

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
)

// A scenario is a run of task lives replayed on the sandbox under a fake
// clock: what is sent, how often, on what the service does.
type scenario struct {
	name  string
	op    api.Operation
	model string
	body  map[string]any
	// n tasks, one every every; warm are sent and finished first, by an
	// earlier run of clapper whose history the measured run starts with.
	n, warm int
	every   time.Duration
	// failRate of the tasks fail part-way; offPeak sends them off-peak.
	failRate float64
	offPeak  bool
	// short lives end within seconds of their start: the poller reads them
	// rarely by luck of its period, so clapper may read them a little more.
	short bool
}

// lifeResult is what a way of polling cost and how late it saw each task
// end.
type lifeResult struct {
	tasks, reads int
	late         []time.Duration // the service ended a task -> the client knows
	// byState counts the reads by the state they found ("counts" for the
	// account probe's).
	byState map[string]int
}

// readCounter serves the sandbox and counts the reads by what they found.
type readCounter struct {
	h       http.Handler
	mu      sync.Mutex
	byState map[string]int
}

func (c *readCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byState)
}

func (c *readCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := handlerTransport{c.h}.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet {
		return res, err
	}
	kind := "counts"
	if strings.HasSuffix(r.URL.Path, "/creations") {
		b, _ := io.ReadAll(res.Body)
		res.Body = io.NopCloser(bytes.NewReader(b))
		var v struct {
			State string `json:"state"`
		}
		json.Unmarshal(b, &v)
		kind = v.State
	}
	c.mu.Lock()
	c.byState[kind]++
	c.mu.Unlock()
	return res, nil
}

func (r lifeResult) perTask() float64 { return float64(r.reads) / float64(r.tasks) }

func (r lifeResult) median() time.Duration {
	d := slices.Clone(r.late)
	slices.Sort(d)
	return d[len(d)/2]
}

func (r lifeResult) worst() time.Duration { return slices.Max(r.late) }

// replay runs a scenario with the watcher (a fresh one, as a new run of
// clapper, on a history holding the warm-up run) and computes a plain
// poller reading every task every 5 s from its creation on the same
// server timeline.
func replay(tb testing.TB, sc scenario) (adaptive, fixed lifeResult) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	clk := sandbox.NewFakeClock(t0)
	srv, err := sandbox.New(sandbox.Config{Clock: clk, Seed: 7, FailRate: sc.failRate})
	if err != nil {
		tb.Fatal(err)
	}
	defer srv.Close()
	counter := &readCounter{h: srv, byState: map[string]int{}}
	client, _ := api.NewClient("http://sandbox.test", "tok", api.WithHTTPClient(&http.Client{Transport: counter}))
	store, err := history.Open(filepath.Join(tb.TempDir(), "h.db"), history.WithClock(clk.Now))
	if err != nil {
		tb.Fatal(err)
	}
	defer store.Close()
	tr := &Tracker{Client: client, Store: store, Clock: clk}
	send := func(w *Watcher, i int) (string, time.Time) {
		body := map[string]any{"model": sc.model, "prompt": fmt.Sprint("scene ", i)}
		for k, v := range sc.body {
			body[k] = v
		}
		if sc.offPeak {
			body["off_peak"] = true
		}
		sub, err := tr.Submit(ctx, sc.op, body)
		if err != nil {
			tb.Fatal(err)
		}
		id := sub.Task.Identifier()
		w.Watch(id, sc.op, sc.model, sub.Task.State, clk.Now())
		return id, clk.Now()
	}
	// runUntilDone sends n tasks every sc.every and steps the watcher until
	// every one is settled; it returns when each was sent and seen ended.
	runUntilDone := func(w *Watcher, n int) (sent, seen map[string]time.Time) {
		sent, seen = map[string]time.Time{}, map[string]time.Time{}
		start := clk.Now()
		for i := 0; ; {
			for ; i < n && !start.Add(time.Duration(i)*sc.every).After(clk.Now()); i++ {
				id, at := send(w, i)
				sent[id] = at
			}
			wake := w.Step(ctx)
			for _, e := range drain(w) {
				if e.Kind == EventState && api.IsTerminal(e.To) {
					seen[e.TaskID] = e.At
				}
			}
			if i >= n && wake.IsZero() {
				return sent, seen
			}
			next := wake
			if at := start.Add(time.Duration(i) * sc.every); i < n && (next.IsZero() || at.Before(next)) {
				next = at
			}
			clk.Set(next)
		}
	}
	// The jitter drawn from a fixed seed: a replay is the same each time.
	schedule := func() *Schedule {
		s := DefaultSchedule()
		s.rand = rand.New(rand.NewPCG(1, 2)).Float64
		return s
	}
	if sc.warm > 0 {
		runUntilDone(NewWatcher(client, store, WatcherOptions{Clock: clk, Schedule: schedule()}), sc.warm)
		clk.Advance(time.Hour)
	}
	w := NewWatcher(client, store, WatcherOptions{Clock: clk, Schedule: schedule()})
	counter.reset()
	sent, seen := runUntilDone(w, sc.n)
	ended := serverTimeline(tb, srv)
	adaptive = lifeResult{tasks: sc.n, reads: w.Requests(), byState: counter.byState}
	fixed = lifeResult{tasks: sc.n}
	const period = 5 * time.Second
	for id, created := range sent {
		var end time.Time
		for _, c := range ended[id] {
			if api.IsTerminal(c.state) {
				end = c.at
			}
		}
		if end.IsZero() || seen[id].IsZero() {
			tb.Fatalf("%s: task %s ended %v, seen %v", sc.name, id, end, seen[id])
		}
		adaptive.late = append(adaptive.late, seen[id].Sub(end))
		k := (end.Sub(created) + period - 1) / period
		fixed.late = append(fixed.late, created.Add(k*period).Sub(end))
		fixed.reads += int(k)
	}
	return adaptive, fixed
}

// The lives replayed: the held-back run of ten text-to-video tasks (half
// queue behind the five slots; lives of three minutes and more) after ten
// earlier successes in history, the same with an empty history, shorter
// videos, short images, long music videos, failures, and off-peak tasks.
var lives = []scenario{
	{name: "ten videos, half queued, history warm", op: api.OpText2Video, model: "svcq2", n: 10, warm: 10, every: time.Second,
		body: map[string]any{"duration": 10, "resolution": "1080p"}},
	{name: "ten videos, half queued, history empty", op: api.OpText2Video, model: "svcq2", n: 10, every: time.Second,
		body: map[string]any{"duration": 10, "resolution": "1080p"}},
	{name: "ten 5 s videos, history warm", op: api.OpText2Video, model: "svcq1", n: 10, warm: 10, every: time.Second},
	{name: "images, short", op: api.OpReference2Image, model: "svcq2", n: 8, warm: 5, every: 3 * time.Second, short: true},
	{name: "music videos, long", op: api.OpMV, n: 4, warm: 3, every: 10 * time.Second, body: map[string]any{"audio_url": "https://example.com/song.mp3", "images": []any{"https://example.com/a.png"}}},
	{name: "videos, a third failing", op: api.OpText2Video, model: "svcq3-turbo", n: 12, warm: 6, every: 2 * time.Second, failRate: 0.33},
	{name: "videos off-peak (reported only)", op: api.OpText2Video, model: "svcq1", n: 3, every: time.Second, offPeak: true, body: map[string]any{"audio": false}},
}

// Each schedule's reads and lateness on each kind of life, side by side
// with a plain 5-second poller: on the held-back run the watcher sees every
// end no later than the poller (median and worst) with at most a third of
// its reads; elsewhere it never reads more than the poller, nor is it later
// than the poller's worst.
func TestPollingAgainstAFiveSecondPoller(t *testing.T) {
	for i, sc := range lives {
		adaptive, fixed := replay(t, sc)
		t.Logf("%-40s clapper %5.1f reads/task, late median %5.1fs worst %5.1fs | 5 s poller %5.1f reads/task, median %4.1fs worst %4.1fs | clapper's reads by what they found %v",
			sc.name, adaptive.perTask(), adaptive.median().Seconds(), adaptive.worst().Seconds(),
			fixed.perTask(), fixed.median().Seconds(), fixed.worst().Seconds(), adaptive.byState)
		limit := fixed.perTask()
		switch {
		case sc.offPeak:
			continue // it waits hours for the quiet window: reads thin out, lateness is the window's
		case i == 0 && (adaptive.median() > fixed.median() || adaptive.worst() > fixed.worst() || adaptive.perTask() > fixed.perTask()/3):
			t.Errorf("%s: clapper must see every end no later than the poller with a third of its reads", sc.name)
		case sc.short:
			limit *= 1.25
		}
		if adaptive.perTask() > limit || adaptive.worst() > 5*time.Second+fixed.worst() {
			t.Errorf("%s: clapper reads more than the poller, or is far later than its worst", sc.name)
		}
	}
}
