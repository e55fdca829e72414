package track

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"clapper/api"
)

// Issue 19.16: a read that carries no credits field says nothing about
// credits; the value the creation echo recorded stands.
func TestReadWithoutCreditsKeepsRecordedCredits(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	id := ids[0]
	quiet := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(rw, `{"id":%q,"state":"processing","err_code":"","creations":null}`, id)
	})
	w.client = quietClient(t, quiet)
	run(t, w, clk, t0.Add(time.Minute))
	task, err := store.TaskByID(context.Background(), id)
	if err != nil || task.State != api.StateProcessing || task.Credits != 10 {
		t.Errorf("after a read without credits: state %s, credits %d (%v); want processing and the echoed 10", task.State, task.Credits, err)
	}
}

// quietClient is a one-attempt client of a handler on the loopback.
func quietClient(t *testing.T, h http.Handler) *api.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := api.NewClient(srv.URL, "tok", api.WithRetry(api.RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Issue 19.15: a refusal with a huge message (2 MB, a thousand times what
// is kept) is stored capped, its size noted, not whole.
func TestHugeRefusalIsStoredCapped(t *testing.T) {
	svc := newService()
	svc.create = func(w http.ResponseWriter) bool {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"code":400,"reason":"FieldInvalid","message":%q}`, strings.Repeat("m", 2<<20))
		return true
	}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	_, err := tr.Submit(context.Background(), api.OpReference2Image, body())
	var se *SubmitError
	if !errors.As(err, &se) || len(err.Error()) > 2*api.MaxMessage {
		t.Fatalf("submit error of %d bytes", len(fmt.Sprint(err)))
	}
	task, _ := store.Task(context.Background(), se.LocalID)
	if task.Rejection == nil || len(task.Rejection.Message) > api.MaxMessage+100 || !strings.Contains(task.Rejection.Message, "2 MB") {
		t.Errorf("stored rejection %+v", task.Rejection)
	}
}

// Issue 19.4: a 429 asking to wait a day pauses reads for a few minutes at
// most, says so (an event with the time reads resume), and then every task
// is read again.
func TestRetryAfterOfADayIsCappedAndShown(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 2)
	svc.status[ids[0]] = 429
	svc.header["Retry-After"] = "86400"
	svc.states[ids[1]] = []string{"processing"}
	var paused *Event
	for clk.Now().Before(t0.Add(10 * time.Minute)) {
		next := w.Step(context.Background())
		for _, e := range drain(w) {
			if e.Kind == EventPaused && paused == nil {
				paused = &e
			}
		}
		clk.Set(next)
	}
	if paused == nil {
		t.Fatal("no event says the service asked to wait")
	}
	if d := paused.Until.Sub(paused.At); d <= 0 || d > MaxPause {
		t.Errorf("pause of %v, want at most %v", d, MaxPause)
	}
	if svc.reads[ids[0]] < 3 || svc.reads[ids[1]] < 3 {
		t.Errorf("in ten minutes the throttled task was read %d times, the other %d; the pause must end in minutes",
			svc.reads[ids[0]], svc.reads[ids[1]])
	}
}

// blip wraps the scripted service: until the clock passes end, every read
// answers what a gateway in trouble sends, a 404 page in HTML.
type blip struct {
	svc *service
	clk interface{ Now() time.Time }
	end time.Time
}

func (b blip) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && b.clk.Now().Before(b.end) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(404)
		io.WriteString(w, "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>")
		return
	}
	b.svc.ServeHTTP(w, r)
}

// Issue 19.1: a 15-second gateway blip of HTML 404 pages loses no task:
// only the service's own TaskNotFound counts toward lost, and all tasks
// are followed to success afterwards.
func TestGatewayBlipLosesNoTask(t *testing.T) {
	svc := newService()
	_, store, clk := setup(t, svc)
	srv := httptest.NewServer(blip{svc: svc, clk: clk, end: t0.Add(15 * time.Second)})
	t.Cleanup(srv.Close)
	c, _ := api.NewClient(srv.URL, "tok", api.WithSleep(func(context.Context, time.Duration) error { return nil }))
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 3)
	for _, id := range ids {
		svc.states[id] = []string{"processing", "success"}
	}
	events := run(t, w, clk, t0.Add(time.Hour))
	for _, e := range events {
		if e.Kind == EventLost {
			t.Errorf("task %s lost in a gateway blip", e.TaskID)
		}
	}
	for _, id := range ids {
		if task, _ := store.TaskByID(context.Background(), id); task.State != api.StateSuccess {
			t.Errorf("task %s ends %s after the blip, want success", id, task.State)
		}
	}
	if lost, _ := store.LostTasks(context.Background()); len(lost) != 0 {
		t.Errorf("history lists lost tasks: %+v", lost)
	}
}

// Issue 19.1: the service's own TaskNotFound makes a task lost only once
// it has said so for LostWindow, not after three quick reads.
func TestTaskNotFoundLosesOnlyAfterTheWindow(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	var lostAt time.Time
	for clk.Now().Before(t0.Add(time.Hour)) && lostAt.IsZero() {
		next := w.Step(context.Background())
		for _, e := range drain(w) {
			if e.Kind == EventLost && e.TaskID == ids[0] {
				lostAt = e.At
			}
		}
		if next.IsZero() {
			break
		}
		clk.Set(next)
	}
	if lostAt.IsZero() {
		t.Fatal("a task the service keeps saying it does not know is followed for an hour")
	}
	if d := lostAt.Sub(t0); d < LostWindow {
		t.Errorf("lost %v after creation, before the window of %v", d, LostWindow)
	}
}
