package track

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Issue 19.2: while a request is being sent by a live process it is not of
// unknown outcome, however long the answer takes; the sender beats. Once
// the beats stop (the process hangs or died elsewhere), or the sender is a
// process of this machine that no longer runs, it is.
func TestOutcomeIsUnknownOnlyWhenTheSenderIsGone(t *testing.T) {
	sending := record.Task{State: record.StateSubmitting, Sender: Sender(), SenderBeat: t0}
	for _, c := range []struct {
		name    string
		t       record.Task
		now     time.Time
		unknown bool
	}{
		{"live sender, fresh beat", sending, t0.Add(IntentStale - time.Second), false},
		{"live sender, stale beat", sending, t0.Add(IntentStale + time.Second), true},
		{"no sender (an older clapper)", record.Task{State: record.StateSubmitting}, t0, true},
		{"sender of this machine that no longer runs", record.Task{State: record.StateSubmitting, Sender: hostname() + "/999999999/x", SenderBeat: t0}, t0, true},
		{"sender of another machine, fresh beat", record.Task{State: record.StateSubmitting, Sender: "elsewhere/1/x", SenderBeat: t0}, t0.Add(time.Second), false},
		{"answered", record.Task{State: api.StateCreated}, t0.Add(time.Hour), false},
	} {
		if got := OutcomeUnknown(c.t, c.now); got != c.unknown {
			t.Errorf("%s: unknown %v, want %v", c.name, got, c.unknown)
		}
	}
}

// Issue 19.2: a POST that takes longer than IntentStale keeps its request
// "being sent" in history: the tracker beats while it waits.
func TestSlowAnswerKeepsTheRequestBeingSent(t *testing.T) {
	svc := newService()
	release := make(chan struct{})
	svc.create = func(w http.ResponseWriter) bool {
		svc.mu.Unlock()
		<-release
		svc.mu.Lock()
		return false
	}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk, beatEvery: 5 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, err := tr.Submit(context.Background(), api.OpReference2Image, body())
		done <- err
	}()
	var beat time.Time
	deadline := time.Now().Add(5 * time.Second)
	for {
		clk.Advance(time.Second)
		time.Sleep(5 * time.Millisecond)
		unknown, _ := store.UnknownOutcomes(context.Background())
		if len(unknown) == 1 && unknown[0].SenderBeat.After(t0.Add(IntentStale)) {
			beat = unknown[0].SenderBeat
			if OutcomeUnknown(unknown[0], clk.Now()) {
				t.Fatalf("a request still being sent reads as of unknown outcome (beat %v, now %v)", beat, clk.Now())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no heartbeat past %v: %+v", IntentStale, unknown)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if unknown, _ := store.UnknownOutcomes(context.Background()); len(unknown) != 0 {
		t.Errorf("answered, yet still sending: %+v", unknown)
	}
	_ = fmt.Sprint(beat)
}
