package track

import (
	"context"
	"errors"
	"fmt"
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

// Issue 19.15: a refusal with a 30 MB message is stored capped, its size
// noted, not whole.
func TestHugeRefusalIsStoredCapped(t *testing.T) {
	svc := newService()
	svc.create = func(w http.ResponseWriter) bool {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"code":400,"reason":"FieldInvalid","message":%q}`, strings.Repeat("m", 30<<20))
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
	if task.Rejection == nil || len(task.Rejection.Message) > api.MaxMessage+100 || !strings.Contains(task.Rejection.Message, "30 MB") {
		t.Errorf("stored rejection %+v", task.Rejection)
	}
}
