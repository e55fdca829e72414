package track

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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
