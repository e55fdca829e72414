package track

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Tests for the mutants of the whole-package run of issue 35 that lived.

// pendingFails is a store whose list of pending downloads cannot be read
// while fail is set (a history on a full disk).
type pendingFails struct {
	Store
	fail atomic.Bool
}

func (s *pendingFails) PendingDownloads(ctx context.Context) ([]record.Download, error) {
	if s.fail.Load() {
		return nil, errors.New("database is locked")
	}
	return s.Store.PendingDownloads(ctx)
}

// A downloader that cannot read its queue says so, as a download event
// with the error (the front end shows it), and goes on running.
func TestRunReportsAQueueItCannotRead(t *testing.T) {
	_, store, clk := setup(t, newService())
	ps := &pendingFails{Store: store}
	ps.fail.Store(true)
	events := make(chan Event, 16)
	d := &Downloader{Store: ps, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() },
		Emit: func(e Event) { events <- e }}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- d.Run(ctx) }()
	select {
	case e := <-events:
		if e.Kind != EventDownload || e.Err == nil || !strings.Contains(e.Err.Error(), "database is locked") {
			t.Errorf("event %+v, want the queue's error", e)
		}
	case <-time.After(20 * time.Second):
		t.Error("a queue that cannot be read is not reported")
	}
	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("Run ended with %v", err)
	}
	select {
	case e := <-events:
		t.Errorf("an event after the end: %+v", e)
	default:
	}
}
