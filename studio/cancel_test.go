package studio_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

// "The caller may also cancel an off-peak task manually": a task waiting
// (created, queueing) or held for its off-peak window may be cancelled; a
// task being generated now, a finished one, one with no id and a
// multi-scene job may not.
func TestCancellableOnlyWhereTheServiceTakesIt(t *testing.T) {
	for _, c := range []struct {
		name string
		task record.Task
		want bool
	}{
		{"created", record.Task{TaskID: "t", Operation: api.OpText2Video, State: api.StateCreated}, true},
		{"queueing", record.Task{TaskID: "t", Operation: api.OpText2Video, State: api.StateQueueing}, true},
		{"processing off-peak", record.Task{TaskID: "t", Operation: api.OpText2Video, State: api.StateProcessing, OffPeak: true}, true},
		{"processing", record.Task{TaskID: "t", Operation: api.OpText2Video, State: api.StateProcessing}, false},
		{"success", record.Task{TaskID: "t", Operation: api.OpText2Video, State: api.StateSuccess, OffPeak: true}, false},
		{"failed", record.Task{TaskID: "t", Operation: api.OpText2Video, State: api.StateFailed, OffPeak: true}, false},
		{"no task id", record.Task{Operation: api.OpText2Video, State: record.StateSubmitting}, false},
		{"multi-scene job", record.Task{TaskID: "j", Operation: api.OpGeneralOneClick, State: api.StateQueueing}, false},
	} {
		if got := studio.Cancellable(c.task); got != c.want {
			t.Errorf("%s: Cancellable = %v, want %v", c.name, got, c.want)
		}
	}
}

// A cancel the rule refuses is never sent.
func TestCancelOfAProcessingTaskIsNotSent(t *testing.T) {
	isolated(t)
	var cancels atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/cancel") {
			cancels.Add(1)
		}
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"id":"t1","state":"failed","err_code":"UserCancelled","creations":[]}`))
	}))
	t.Cleanup(srv.Close)
	cfg := resolved(t, studio.Config{APIKey: "key-0123456789", BaseURL: srv.URL})
	s, err := studio.Open(context.Background(), cfg, studio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	busy := record.Task{TaskID: "t1", Operation: api.OpText2Video, State: api.StateProcessing}
	if err := s.Cancel(context.Background(), busy); err == nil || cancels.Load() != 0 {
		t.Errorf("cancel of a processing task: %v, %d cancel requests sent", err, cancels.Load())
	}
	held := busy
	held.OffPeak = true
	// (History does not hold t1, so the read after the cancel fails: only
	// the request matters here.)
	s.Cancel(context.Background(), held)
	if cancels.Load() != 1 {
		t.Errorf("cancel of an off-peak task: %d cancel requests sent, want 1", cancels.Load())
	}
}

// "a task created with off_peak true is generated within 48 hours": the
// deadline history shows is the creation plus 48 hours, to the millisecond.
func TestOffPeakDeadlineIsFortyEightHours(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, resolved(t, studio.Config{}), clk)
	sub, err := s.Submit(context.Background(), api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p", "off_peak": true})
	if err != nil {
		t.Fatal(err)
	}
	task, err := s.Record().TaskByID(context.Background(), sub.Task.Identifier())
	if err != nil {
		t.Fatal(err)
	}
	if !task.OffPeak || !task.OffPeakDeadline.Equal(task.CreatedAt.Add(48*time.Hour)) {
		t.Errorf("off-peak %v, deadline %v for a task created %v", task.OffPeak, task.OffPeakDeadline, task.CreatedAt)
	}
}
