package track

import (
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// service is a scripted stand-in for the service: creations get ids in
// order, and each task answers the states queued for it.
type service struct {
	mu      sync.Mutex
	next    int
	created []string
	states  map[string][]string // successive answers; the last repeats
	status  map[string]int      // forced HTTP status per task read
	header  map[string]string
	reads   map[string]int
	create  func(w http.ResponseWriter) bool // true when it answered
	// resultURL, when set, is the URL of every success read.
	resultURL string
	// offPeak: every read says the task is off-peak.
	offPeak bool
	// credits answers the account's reads (GET credits); "" is 404.
	credits     string
	creditReads int
}

func newService() *service {
	return &service{states: map[string][]string{}, status: map[string]int{}, header: map[string]string{}, reads: map[string]int{}}
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodPost:
		if s.create != nil && s.create(w) {
			return
		}
		s.next++
		id := fmt.Sprintf("t%d", s.next)
		s.created = append(s.created, id)
		fmt.Fprintf(w, `{"task_id":%q,"state":"created","credits":10,"created_at":"2026-11-25T12:00:00.000000001Z"}`, id)
	case strings.HasPrefix(r.URL.Path, "/ent/v2/tasks/"):
		id := strings.Split(r.URL.Path, "/")[4]
		s.reads[id]++
		if st := s.status[id]; st != 0 {
			for k, v := range s.header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(st)
			fmt.Fprintf(w, `{"code":%d,"reason":"X","message":"forced"}`, st)
			return
		}
		states := s.states[id]
		if len(states) == 0 {
			w.WriteHeader(404)
			io.WriteString(w, `{"code":404,"reason":"TaskNotFound","message":"no such task"}`)
			return
		}
		state := states[0]
		if len(states) > 1 {
			s.states[id] = states[1:]
		}
		creations := "null"
		if state == api.StateSuccess {
			url := "http://files.invalid/" + id + "/1.mp4"
			if s.resultURL != "" {
				url = s.resultURL
			}
			creations = fmt.Sprintf(`[{"id":"c1","url":%q}]`, url)
		}
		fmt.Fprintf(w, `{"id":%q,"state":%q,"err_code":"","credits":10,"off_peak":%t,"creations":%s}`, id, state, s.offPeak, creations)
	case r.URL.Path == api.PathCredits && s.credits != "":
		s.creditReads++
		io.WriteString(w, s.credits)
	default:
		w.WriteHeader(404)
	}
}

func setup(t *testing.T, svc http.Handler) (*api.Client, *history.Store, *sandbox.FakeClock) {
	t.Helper()
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	clk := sandbox.NewFakeClock(t0)
	store, err := history.Open(filepath.Join(t.TempDir(), "h.db"), history.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	c, err := api.NewClient(srv.URL, "tok", api.WithSleep(func(context.Context, time.Duration) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	return c, store, clk
}

func body() map[string]any {
	return map[string]any{"model": "svcq3-pro", "prompt": "a fox"}
}

func TestSubmitRecordsIntentThenID(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	var sawIntent bool
	tr.AfterIntent = func(localID int64) error {
		task, err := store.Task(context.Background(), localID)
		sawIntent = err == nil && task.State == record.StateSubmitting && len(svc.created) == 0
		return nil
	}
	sub, err := tr.Submit(context.Background(), api.OpText2Video, body())
	if err != nil || !sawIntent {
		t.Fatalf("submit: %v, intent before POST: %v", err, sawIntent)
	}
	task, _ := store.TaskByID(context.Background(), sub.Task.Identifier())
	if task.State != api.StateCreated || task.Credits != 10 || task.LocalID != sub.LocalID {
		t.Errorf("recorded %+v", task)
	}
	// The watcher is handed the model and the time from the submission,
	// not from a read of the row just written.
	if sub.Model != task.Model || !sub.Sent.Equal(clk.Now()) || !sub.Sent.Equal(task.CreatedAt) {
		t.Errorf("submission says model %q sent %v; recorded %q at %v (clock %v)", sub.Model, sub.Sent, task.Model, task.CreatedAt, clk.Now())
	}
}

// A crash at each step of a submission loses no task the service created:
// every created task is in history by id, or stands there as an intent of
// unknown outcome for the user to resolve.
func TestCrashAtEachStepLosesNoTask(t *testing.T) {
	crash := errors.New("crash")
	for _, step := range []string{"after intent", "after POST", "none"} {
		t.Run(step, func(t *testing.T) {
			svc := newService()
			c, store, clk := setup(t, svc)
			tr := &Tracker{Client: c, Store: store, Clock: clk}
			switch step {
			case "after intent":
				tr.AfterIntent = func(int64) error { return crash }
			case "after POST":
				tr.AfterPost = func(int64, *api.Task) error { return crash }
			}
			_, err := tr.Submit(context.Background(), api.OpText2Video, body())
			if step != "none" && !errors.Is(err, crash) {
				t.Fatalf("err = %v", err)
			}
			unknown, _ := store.UnknownOutcomes(context.Background())
			var missing int
			for _, id := range svc.created {
				if _, err := store.TaskByID(context.Background(), id); err != nil {
					missing++
				}
			}
			if missing > len(unknown) {
				t.Errorf("%d created task(s) not in history, only %d unknown intent(s)", missing, len(unknown))
			}
			if step != "none" && (len(unknown) != 1 || unknown[0].Request == nil && unknown[0].Operation != api.OpText2Video) {
				t.Errorf("unknown outcomes: %+v", unknown)
			}
		})
	}
}

func TestRejectionKeepsBodyForResubmit(t *testing.T) {
	svc := newService()
	quota := true
	svc.create = func(w http.ResponseWriter) bool {
		if !quota {
			return false
		}
		w.Header().Set(api.TraceHeader, "tr-1")
		w.WriteHeader(429)
		io.WriteString(w, `{"code":429,"reason":"QuotaExceeded","message":"too many tasks"}`)
		return true
	}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	var localID int64
	tr.AfterIntent = func(id int64) error { localID = id; return nil }
	_, err := tr.Submit(context.Background(), api.OpText2Video, body())
	if e, ok := api.AsError(err); !ok || e.Reason != api.ReasonQuotaExceeded {
		t.Fatalf("err = %v", err)
	}
	task, _ := store.Task(context.Background(), localID)
	if task.State != record.StateRejected || task.Rejection == nil || !task.Rejection.Retryable || task.Rejection.TraceID != "tr-1" {
		t.Fatalf("rejected task %+v / %+v", task, task.Rejection)
	}
	quota = false
	sub, err := tr.Resubmit(context.Background(), localID, api.OpText2Video)
	if err != nil || sub.LocalID != localID {
		t.Fatalf("resubmit: %v", err)
	}
	task, _ = store.Task(context.Background(), localID)
	if task.TaskID != sub.Task.Identifier() || task.State != api.StateCreated {
		t.Errorf("after resubmit %+v", task)
	}
}

func TestConnectionRefusedIsNotSent(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	_, store, clk := setup(t, newService())
	c, _ := api.NewClient("http://"+addr, "tok", api.WithSleep(func(context.Context, time.Duration) error { return nil }))
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	_, err := tr.Submit(context.Background(), api.OpText2Video, body())
	if err == nil || errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v", err)
	}
	// It says what happened: not a refusal, the host not reached.
	var ns *NotSentError
	if !errors.As(err, &ns) || ns.Host != addr || !strings.HasPrefix(ns.Error(), "not sent: could not reach "+addr) {
		t.Errorf("err = %v, want not sent: could not reach %s", err, addr)
	}
	if unknown, _ := store.UnknownOutcomes(context.Background()); len(unknown) != 0 {
		t.Errorf("a request that never left is shown as unknown: %+v", unknown)
	}
	var se *SubmitError
	errors.As(err, &se)
	task, _ := store.Task(context.Background(), se.LocalID)
	if !task.NotSent() || !strings.HasPrefix(task.Rejection.Message, "not sent: could not reach "+addr) {
		t.Errorf("history keeps %+v", task.Rejection)
	}
}

func TestCutConnectionIsOutcomeUnknown(t *testing.T) {
	svc := newService()
	svc.create = func(w http.ResponseWriter) bool {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
		return true
	}
	// The fake holds its lock while hijacking; no other request runs.
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	if _, err := tr.Submit(context.Background(), api.OpText2Video, body()); !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v", err)
	}
	if unknown, _ := store.UnknownOutcomes(context.Background()); len(unknown) != 1 {
		t.Errorf("unknown outcomes %d, want 1", len(unknown))
	}
}

func TestCallbackURLAddedWhereTaken(t *testing.T) {
	var got map[string]any
	svc := newService()
	svc.create = func(w http.ResponseWriter) bool { return false }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&got)
		io.WriteString(w, `{"task_id":"x","state":"queueing"}`)
	}))
	defer srv.Close()
	_, store, clk := setup(t, svc)
	c, _ := api.NewClient(srv.URL, "tok")
	tr := &Tracker{Client: c, Store: store, Clock: clk, CallbackURL: "https://hooks.example/clapper"}
	tr.Submit(context.Background(), api.OpText2Video, body())
	if got["callback_url"] != "https://hooks.example/clapper" {
		t.Errorf("callback_url not added: %v", got)
	}
	got = nil
	tr.Submit(context.Background(), api.OpAudioTTS, map[string]any{"text": "hi", "voice_setting_voice_id": "v"})
	if _, ok := got["callback_url"]; ok {
		t.Error("callback_url added to audio-tts, which takes none")
	}
}

// watch submits n tasks and returns a watcher following them.
func watch(t *testing.T, svc *service, c *api.Client, store *history.Store, clk *sandbox.FakeClock, o WatcherOptions, n int) (*Watcher, []string) {
	t.Helper()
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	o.Clock = clk
	w := NewWatcher(c, store, o)
	var ids []string
	for i := 0; i < n; i++ {
		sub, err := tr.Submit(context.Background(), api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "p"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sub.Task.Identifier())
	}
	if err := w.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w, ids
}

func drain(w *Watcher) []Event {
	var out []Event
	for {
		select {
		case e := <-w.Events():
			out = append(out, e)
		default:
			return out
		}
	}
}

// run steps the watcher on the fake clock until nothing is followed or the
// deadline passes, and returns the events in order.
func run(t *testing.T, w *Watcher, clk *sandbox.FakeClock, until time.Time) []Event {
	t.Helper()
	var events []Event
	for i := 0; i < 10000; i++ {
		next := w.Step(context.Background())
		events = append(events, drain(w)...)
		if next.IsZero() || next.After(until) {
			return events
		}
		clk.Set(next)
	}
	t.Fatal("watcher did not settle")
	return nil
}

func TestWatcherRecordsThenReportsEachChangeOnce(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	id := ids[0]
	svc.states[id] = []string{"queueing", "queueing", "processing", "processing", "processing", "success"}
	events := run(t, w, clk, t0.Add(time.Hour))
	var changes []string
	for _, e := range events {
		if e.Kind != EventState {
			t.Errorf("unexpected event %+v", e)
			continue
		}
		changes = append(changes, e.From+">"+e.To)
		task, _ := store.TaskByID(context.Background(), id)
		if api.StateRank(task.State) < api.StateRank(e.To) {
			t.Errorf("event %s>%s delivered before history shows it (%s)", e.From, e.To, task.State)
		}
	}
	if got := strings.Join(changes, " "); got != "created>queueing queueing>processing processing>success" {
		t.Errorf("changes: %s", got)
	}
	if w.Watching() != 0 {
		t.Error("still watching a finished task")
	}
	task, _ := store.TaskByID(context.Background(), id)
	if task.State != api.StateSuccess || len(task.Creations) == 0 || !task.Creations[0].URLExpiresAt.After(clk.Now().Add(23*time.Hour)) {
		t.Errorf("history after success: %+v", task)
	}
	reads := svc.reads[id]
	if reads != 6 {
		t.Errorf("%d reads, want 6 (one per scripted answer)", reads)
	}
}

func TestWatcherStaysWithinBudget(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{RequestsPerSecond: 2, Burst: 2}, 20)
	for _, id := range ids {
		svc.states[id] = []string{"processing"}
	}
	start := clk.Now()
	run(t, w, clk, t0.Add(time.Minute))
	elapsed := clk.Now().Sub(start).Seconds()
	if n := float64(w.Requests()); n > 2+2*elapsed+1e-9 {
		t.Errorf("%v requests in %.1f s exceed a budget of 2/s with burst 2", n, elapsed)
	}
	if w.Requests() < 20 {
		t.Errorf("only %d requests: every task should be read once in a minute", w.Requests())
	}
}

func TestWatcherBacksOffAndHonoursRetryAfter(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	id := ids[0]
	svc.status[id] = 429
	svc.header["Retry-After"] = "120"
	next := w.Step(context.Background()) // not due yet: the first read waits FirstPoll
	clk.Set(next)
	next = w.Step(context.Background())
	if d := next.Sub(clk.Now()); d < 120*time.Second {
		t.Errorf("next read after a 429 with Retry-After 120: in %v", d)
	}
	if ev := drain(w); len(ev) != 2 || ev[0].Kind != EventPollFailed || ev[1].Kind != EventPaused || !ev[1].Until.Equal(next) {
		t.Errorf("events %+v", ev)
	}
	svc.status[id] = 503
	delete(svc.header, "Retry-After")
	var waits []time.Duration
	for i := 0; i < 4; i++ {
		clk.Set(next)
		next = w.Step(context.Background())
		waits = append(waits, next.Sub(clk.Now()))
	}
	for i := 1; i < len(waits); i++ {
		if waits[i] <= waits[i-1] {
			t.Errorf("backoff does not grow: %v", waits)
		}
	}
}

func TestWatcherStopsFollowingAnUnknownTask(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	events := run(t, w, clk, t0.Add(time.Hour)) // no scripted states: every read is 404
	last := events[len(events)-1]
	if last.Kind != EventLost || last.TaskID != ids[0] || w.Watching() != 0 {
		t.Errorf("last event %+v, watching %d", last, w.Watching())
	}
	// History keeps the task as it was, marked lost: no later run retries it.
	if task, _ := store.TaskByID(context.Background(), ids[0]); task.State != api.StateCreated {
		t.Errorf("history changed a task it knows nothing new about: %s", task.State)
	}
	next := NewWatcher(c, store, WatcherOptions{Clock: clk})
	if err := next.Load(context.Background()); err != nil || next.Watching() != 0 {
		t.Errorf("the next run follows a lost task again (%d followed, %v)", next.Watching(), err)
	}
}

// Issue 11.8: repeated 404s stop the retrying across runs, not only within
// one. Each run here is a new watcher that sees one 404 and stops; the runs
// span LostWindow (issue 19.1).
func TestNotFoundCountsAcrossRuns(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 2)
	svc.states[ids[1]] = []string{"processing"}
	for runNo := 1; runNo <= 3; runNo++ {
		w := NewWatcher(c, store, WatcherOptions{Clock: clk})
		if err := w.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		if w.Watching() != 2 {
			t.Fatalf("run %d follows %d task(s), want 2", runNo, w.Watching())
		}
		clk.Advance(LostWindow / 2)
		w.Step(context.Background()) // one read of each, then the run ends
		lost := false
		for _, e := range drain(w) {
			lost = lost || e.Kind == EventLost && e.TaskID == ids[0]
		}
		if lost != (runNo == 3) {
			t.Errorf("run %d: lost %v", runNo, lost)
		}
	}
	w := NewWatcher(c, store, WatcherOptions{Clock: clk})
	w.Load(context.Background())
	if w.Watching() != 1 {
		t.Errorf("after three runs with a 404 each, %d task(s) followed, want the one that answers", w.Watching())
	}
	gone, _ := store.LostTasks(context.Background())
	if len(gone) != 1 || gone[0].TaskID != ids[0] || gone[0].Count != 3 {
		t.Errorf("lost tasks %+v", gone)
	}
}

// A 404 between answers does not add up to a loss: only 404s in a row count,
// also when the answer came in an earlier run.
func TestNotFoundRunEndsWithAnAnswer(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	id := ids[0]
	for i := 0; i < 6; i++ {
		svc.mu.Lock()
		if i%3 == 2 {
			svc.states[id] = []string{"processing"}
		} else {
			delete(svc.states, id)
		}
		svc.mu.Unlock()
		w.mu.Lock()
		w.tasks[id].next = clk.Now()
		heap.Fix(&w.queue, w.tasks[id].index)
		w.mu.Unlock()
		w.Step(context.Background())
		for _, e := range drain(w) {
			if e.Kind == EventLost {
				t.Fatalf("lost after 404, 404, answer, 404, 404 (read %d)", i+1)
			}
		}
		if i == 2 {
			// A new run picks up where the last left: with no run of 404s.
			w = NewWatcher(c, store, WatcherOptions{Clock: clk})
			w.Load(context.Background())
		}
	}
}

// Issue 11.7: the known words for a task the service ended without a result
// end the following; anything else the spec does not name keeps the task
// followed, with pauses that grow, until the service names a final state.
func TestStatesTheSpecDoesNotName(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 2)
	svc.states[ids[0]] = []string{"queueing", "cancelled"}
	pending := make([]string, 12)
	for i := range pending {
		pending[i] = "pending"
	}
	svc.states[ids[1]] = append(pending, "processing", "success")
	var reads []time.Time
	got := map[string][]string{}
	for i := 0; i < 1000 && w.Watching() > 0; i++ {
		before := svc.reads[ids[1]]
		next := w.Step(context.Background())
		if svc.reads[ids[1]] > before {
			reads = append(reads, clk.Now())
		}
		for _, e := range drain(w) {
			got[e.TaskID] = append(got[e.TaskID], e.To)
		}
		if next.IsZero() {
			break
		}
		clk.Set(next)
	}
	if a, b := strings.Join(got[ids[0]], " "), strings.Join(got[ids[1]], " "); a != "queueing cancelled" || b != "pending processing success" {
		t.Errorf("events %q and %q", a, b)
	}
	if task, _ := store.TaskByID(context.Background(), ids[1]); task.State != api.StateSuccess {
		t.Errorf("history after pending and success: %s", task.State)
	}
	// Reads of the pending task back off: each pause longer than the last
	// few (jitter is ±10%, the growth 1.5x).
	var pauses []time.Duration
	for i := 1; i < 12 && i < len(reads); i++ {
		pauses = append(pauses, reads[i].Sub(reads[i-1]))
	}
	if len(pauses) < 10 || pauses[9] < 10*pauses[1] {
		t.Errorf("pauses between reads of a pending task do not grow: %v", pauses)
	}
}

// A 5xx on a creation may come after the service created the task: the
// request is kept as of unknown outcome, never offered for a blind resend.
func TestServerErrorOnCreateIsOutcomeUnknown(t *testing.T) {
	svc := newService()
	svc.create = func(w http.ResponseWriter) bool {
		w.WriteHeader(502)
		return true
	}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	_, err := tr.Submit(context.Background(), api.OpText2Video, body())
	var se *SubmitError
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.As(err, &se) || se.LocalID == 0 {
		t.Fatalf("err = %v", err)
	}
	if unknown, _ := store.UnknownOutcomes(context.Background()); len(unknown) != 1 || unknown[0].LocalID != se.LocalID {
		t.Errorf("unknown outcomes %+v", unknown)
	}
}
