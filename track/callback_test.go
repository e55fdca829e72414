package track

import (
	"container/heap"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
)

// hook serves a receiver for the watcher and posts callbacks to it.
type hook struct {
	t   *testing.T
	url string
	clk *sandbox.FakeClock
	rc  *Receiver
}

func newHook(t *testing.T, w *Watcher, clk *sandbox.FakeClock) *hook {
	rc := &Receiver{Token: "tok", Watcher: w, Clock: clk}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return &hook{t: t, url: srv.URL + "/hook", clk: clk, rc: rc}
}

// signed is a callback as the service sends it: a fresh Date and nonce.
func (h *hook) signed(body string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	api.SignCallback(req, "tok", h.clk.Now())
	return req
}

// replay sends the headers of an earlier callback with another body.
func (h *hook) replay(of *http.Request, body string) int {
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header = of.Header.Clone()
	return h.send(req)
}

func (h *hook) send(req *http.Request) int {
	h.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// slowWatcher reads nothing for an hour unless woken, so any read within the
// test is a callback's doing.
func slowWatcher(t *testing.T, svc *service, n int) (*Watcher, []string, *history.Store, *sandbox.FakeClock) {
	c, store, clk := setup(t, svc)
	slow := &Schedule{FirstPoll: time.Hour, MinInterval: time.Hour, MaxInterval: time.Hour,
		QueueCheckMin: time.Hour, QueueCheckMax: time.Hour, Slots: 5}
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: slow}, n)
	return w, ids, store, clk
}

// forged is the attacker body: success, a price of 1 and a file of
// the attacker's.
func forged(id string) string {
	return `{"id":"` + id + `","state":"success","credits":1,"creations":[{"url":"http://127.0.0.1:9/evil.mp4"}]}`
}

func TestReceiverRefusesUnsignedForgedStaleAndReplayed(t *testing.T) {
	svc := newService()
	w, ids, store, clk := slowWatcher(t, svc, 1)
	svc.states[ids[0]] = []string{"processing"}
	h := newHook(t, w, clk)
	processing := `{"id":"` + ids[0] + `","state":"processing","credits":10}`

	for name, sign := range map[string]func(*http.Request){
		"unsigned": func(*http.Request) {},
		"forged":   func(r *http.Request) { api.SignCallback(r, "not-the-token", clk.Now()) },
		"stale":    func(r *http.Request) { api.SignCallback(r, "tok", clk.Now().Add(-time.Hour)) },
		"tampered": func(r *http.Request) { api.SignCallback(r, "tok", clk.Now()); r.Header.Set(api.HeaderNonce, "other") },
	} {
		req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(processing))
		sign(req)
		if code := h.send(req); code != http.StatusUnauthorized {
			t.Errorf("%s callback answered %d, want 401", name, code)
		}
	}
	genuine := h.signed(processing)
	if code := h.send(genuine); code != http.StatusOK {
		t.Fatalf("genuine callback answered %d", code)
	}
	// Issue 12: the same headers with another body, within the 5-minute
	// window, are a replay.
	clk.Advance(time.Minute)
	if code := h.replay(genuine, forged(ids[0])); code != http.StatusUnauthorized {
		t.Errorf("replayed headers with a forged body answered %d, want 401", code)
	}
	if code := h.replay(genuine, processing); code != http.StatusUnauthorized {
		t.Errorf("replayed callback answered %d, want 401", code)
	}
	w.Step(context.Background())
	if task, _ := store.TaskByID(context.Background(), ids[0]); task.State != api.StateProcessing || task.Credits != 10 || len(task.Creations) != 0 {
		t.Errorf("history after a genuine callback and replays: %s, %d credits, %d creations", task.State, task.Credits, len(task.Creations))
	}
	if code := h.send(h.signed(`{"state":"success"}`)); code != http.StatusBadRequest {
		t.Errorf("body without id answered %d", code)
	}
}

// Issue 12: an attacker who knows one header set and nothing else (the
// genuine callback never arrived) gets a 200 and changes nothing: the task
// is read from the service, and only the service's answer is recorded.
func TestForgedBodyWithValidSignatureChangesNothing(t *testing.T) {
	svc := newService()
	w, ids, store, clk := slowWatcher(t, svc, 1)
	id := ids[0]
	svc.states[id] = []string{"processing"}
	h := newHook(t, w, clk)
	if code := h.send(h.signed(forged(id))); code != http.StatusOK {
		t.Fatalf("answered %d", code)
	}
	w.Step(context.Background())
	ev := drain(w)
	if len(ev) != 1 || ev[0].To != api.StateProcessing || ev[0].Result == nil || ev[0].Result.Credits != 10 || len(ev[0].Result.Creations) != 0 {
		t.Errorf("events %+v, want the service's processing", ev)
	}
	task, _ := store.TaskByID(context.Background(), id)
	if task.State != api.StateProcessing || task.Credits != 10 || len(task.Creations) != 0 || strings.Contains(string(task.Result), "evil") {
		t.Errorf("history: %s, %d credits, creations %+v, result %s", task.State, task.Credits, task.Creations, task.Result)
	}
	for _, e := range task.Events {
		if strings.Contains(string(e.Raw), "evil") {
			t.Errorf("the forged body is in the events: %s", e.Raw)
		}
	}
	if dls, _ := store.Downloads(context.Background(), id); len(dls) != 0 {
		t.Errorf("downloads queued: %+v", dls)
	}
	if w.Watching() != 1 {
		t.Error("a forged success stopped the following")
	}
}

// A genuine callback still brings the change at once: the task is read
// when the callback comes, not an hour later when the schedule says; and
// the service's three deliveries of success count once.
func TestGenuineCallbackReadsAtOnceAndCountsOnce(t *testing.T) {
	svc := newService()
	w, ids, store, clk := slowWatcher(t, svc, 1)
	id := ids[0]
	svc.states[id] = []string{"success"}
	h := newHook(t, w, clk)
	clk.Advance(10 * time.Second)
	if next := w.Step(context.Background()); next.Sub(clk.Now()) < 50*time.Minute {
		t.Fatalf("the slow schedule reads in %v", next.Sub(clk.Now()))
	}
	body := `{"id":"` + id + `","state":"success","credits":10,"creations":[{"id":"c1","url":"http://files.invalid/` + id + `/1.mp4"}]}`
	for i := 0; i < 3; i++ { // redeliveries are signed anew: new Date, new nonce
		if code := h.send(h.signed(body)); code != http.StatusOK {
			t.Fatalf("delivery %d answered %d", i+1, code)
		}
		w.Step(context.Background())
		clk.Advance(5 * time.Second)
	}
	ev := drain(w)
	if len(ev) != 1 || ev[0].To != api.StateSuccess || len(ev[0].Result.Creations) != 1 {
		t.Errorf("events %+v, want one success", ev)
	}
	if svc.reads[id] != 1 {
		t.Errorf("%d reads for three deliveries, want 1", svc.reads[id])
	}
	if task, _ := store.TaskByID(context.Background(), id); task.State != api.StateSuccess || len(task.Events) != 3 {
		t.Errorf("task %s with %d events", task.State, len(task.Events))
	}
	if w.Watching() != 0 {
		t.Error("a finished task is still followed")
	}
}

// A callback for a task this client does not follow is acknowledged and
// ignored without a read: a signed header set cannot buy reads of ids of
// the attacker's choosing.
func TestCallbackForUnknownTaskIsIgnored(t *testing.T) {
	svc := newService()
	w, _, _, clk := slowWatcher(t, svc, 1)
	h := newHook(t, w, clk)
	if code := h.send(h.signed(forged("t999"))); code != http.StatusOK {
		t.Errorf("answered %d, want 200", code)
	}
	w.Step(context.Background())
	if w.Requests() != 0 {
		t.Errorf("%d reads for a task history does not hold", w.Requests())
	}
}

// A callback can outrun the creation answer: the task's first read then
// comes as soon as it is followed, not after the schedule's first pause.
// Remembered for a minute only.
func TestCallbackBeforeFollowingReadsAtOnce(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	slow := &Schedule{FirstPoll: time.Hour, MinInterval: time.Hour, MaxInterval: time.Hour,
		QueueCheckMin: time.Hour, QueueCheckMax: time.Hour, Slots: 5}
	w := NewWatcher(c, store, WatcherOptions{Schedule: slow, Clock: clk})
	h := newHook(t, w, clk)
	h.send(h.signed(forged("t1")))
	h.send(h.signed(forged("t2")))
	if w.Requests() != 0 {
		t.Fatal("read a task nobody follows")
	}
	clk.Advance(2 * time.Minute)
	h.send(h.signed(forged("t2")))
	w.Watch("t1", api.OpReference2Image, "svcq2", api.StateCreated, clk.Now())
	clk.Advance(30 * time.Second)
	w.Watch("t2", api.OpReference2Image, "svcq2", api.StateCreated, clk.Now())
	w.Watch("t3", api.OpReference2Image, "svcq2", api.StateCreated, clk.Now())
	w.Step(context.Background())
	if svc.reads["t1"] != 0 || svc.reads["t2"] != 1 || svc.reads["t3"] != 0 {
		t.Errorf("reads %v; want only t2, signalled within the minute", svc.reads)
	}
}

// The service calls back a scene edit or a composition with the sub-job's
// id: it wakes the multi-scene job the scene belongs to.
func TestSubJobCallbackWakesItsJob(t *testing.T) {
	reads := 0
	jobSrv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reads++
		state := "processing"
		if reads > 1 {
			state = "success"
		}
		w.Write([]byte(`{"id":"j1","state":"processing","job_records":[{"type":"generate_video","index":0,
			"jobs":[{"id":"scene-1","type":"generate_video","state":"` + state + `"}]}]}`))
	})
	c, store, clk := setup(t, jobSrv)
	slow := &Schedule{FirstPoll: time.Hour, MinInterval: time.Hour, MaxInterval: time.Hour,
		QueueCheckMin: time.Hour, QueueCheckMax: time.Hour, Slots: 5}
	w := NewWatcher(c, store, WatcherOptions{Schedule: slow, Clock: clk})
	w.Watch("j1", api.OpGeneralOneClick, "", api.StateCreated, clk.Now())
	h := newHook(t, w, clk)
	if code := h.send(h.signed(`{"id":"j1","state":"processing"}`)); code != http.StatusOK {
		t.Fatalf("answered %d", code)
	}
	w.Step(context.Background())
	if code := h.send(h.signed(`{"id":"scene-1","state":"success"}`)); code != http.StatusOK {
		t.Fatalf("answered %d", code)
	}
	w.Step(context.Background())
	if reads != 2 {
		t.Errorf("%d reads of the job, want 2: the scene's callback did not wake it", reads)
	}
}

// The woken read is still under the request budget.
func TestCallbackReadWaitsForBudget(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	slow := &Schedule{FirstPoll: time.Hour, MinInterval: time.Hour, MaxInterval: time.Hour,
		QueueCheckMin: time.Hour, QueueCheckMax: time.Hour, Slots: 5}
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: slow, RequestsPerSecond: 1, Burst: 1}, 2)
	for _, id := range ids {
		svc.states[id] = []string{"processing"}
	}
	h := newHook(t, w, clk)
	h.send(h.signed(forged(ids[0])))
	h.send(h.signed(forged(ids[1])))
	next := w.Step(context.Background())
	if w.Requests() != 1 || next.Sub(clk.Now()) < 900*time.Millisecond {
		t.Errorf("%d reads at once, the next in %v: over a budget of 1/s", w.Requests(), next.Sub(clk.Now()))
	}
	clk.Set(next)
	w.Step(context.Background())
	if w.Requests() != 2 {
		t.Errorf("%d reads once the budget allowed, want 2", w.Requests())
	}
}

// A callback that comes while the task's read is under way may be newer
// than that read's answer: the task is read again at once.
func TestCallbackDuringReadReadsAgain(t *testing.T) {
	svc := newService()
	w, ids, _, clk := slowWatcher(t, svc, 1)
	id := ids[0]
	svc.states[id] = []string{"processing", "success"}
	w.mu.Lock()
	task := w.tasks[id]
	heap.Remove(&w.queue, task.index) // as Step does before reading
	w.mu.Unlock()
	if !w.Wake(id) {
		t.Fatal("a followed task was not woken")
	}
	w.poll(context.Background(), task, clk.Now())
	w.Step(context.Background())
	var got []string
	for _, e := range drain(w) {
		got = append(got, e.To)
	}
	if strings.Join(got, " ") != "processing success" {
		t.Errorf("events %v, want processing then success at once", got)
	}
}

// The nonce cache is bounded: in time (a nonce is forgotten once its Date
// would fail the freshness check anyway) and in size (a full cache of live
// nonces refuses, with 503, rather than forget one that could be replayed).
func TestNonceCacheBounded(t *testing.T) {
	svc := newService()
	w, ids, _, clk := slowWatcher(t, svc, 1)
	h := newHook(t, w, clk)
	h.rc.MaxNonces = 2
	body := `{"id":"` + ids[0] + `","state":"processing"}`
	first := h.signed(body)
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusServiceUnavailable} {
		req := first
		if i > 0 {
			req = h.signed(body)
		}
		if code := h.send(req); code != want {
			t.Errorf("callback %d answered %d, want %d", i+1, code, want)
		}
	}
	clk.Advance(5*time.Minute + time.Second) // both nonces' Dates are stale now
	if code := h.send(h.signed(body)); code != http.StatusOK {
		t.Errorf("after the window, a new callback answered %d", code)
	}
	h.rc.mu.Lock()
	n := h.rc.nonces.Len()
	h.rc.mu.Unlock()
	if n != 1 {
		t.Errorf("%d nonces remembered, want only the live one", n)
	}
	if code := h.replay(first, body); code != http.StatusUnauthorized {
		t.Errorf("a replay after the window answered %d (the stale Date refuses it)", code)
	}
}

func TestListenCallbacksRefusesPublicAddress(t *testing.T) {
	if _, _, err := ListenCallbacks("0.0.0.0:0", &Receiver{}, CallbackLimits{}); err == nil {
		t.Error("listened on all interfaces")
	}
	srv, ln, err := ListenCallbacks("127.0.0.1:0", &Receiver{}, CallbackLimits{})
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	srv.Close()
}
