package history

import (
	"context"
	"errors"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Issue 19.2: an intent row carries who sends it and when that sender last
// said it is still at it; the rows read back with both.
func TestIntentCarriesItsSenderAndHeartbeat(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq1","prompt":"p"}`), Sender: "host/42/abc"})
	if err != nil {
		t.Fatal(err)
	}
	task, _ := s.Task(ctx, id)
	if task.Sender != "host/42/abc" || !task.SenderBeat.Equal(t0) {
		t.Fatalf("sender %q beat %v", task.Sender, task.SenderBeat)
	}
	clk.t = t0.Add(20 * time.Second)
	if err := s.BeatIntent(ctx, id, "host/42/abc"); err != nil {
		t.Fatal(err)
	}
	unknown, _ := s.UnknownOutcomes(ctx)
	if len(unknown) != 1 || !unknown[0].SenderBeat.Equal(t0.Add(20*time.Second)) {
		t.Fatalf("after a beat: %+v", unknown)
	}
	if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "tk-1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.BeatIntent(ctx, id, "host/42/abc"); !errors.Is(err, record.ErrConflict) {
		t.Errorf("a beat for a request already answered: %v", err)
	}
}

// Issue 19.2: an abandoned request whose answer arrives after all is
// reattached to its task, not refused: the task was created and is billed.
func TestLateAnswerReattachesAnAbandonedRequest(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	id := mustBegin(t, s, `{"model":"svcq1","prompt":"p"}`)
	if err := s.Abandon(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "tk-late", State: api.StateQueueing}); err != nil {
		t.Fatalf("the late answer was refused: %v", err)
	}
	task, _ := s.TaskByID(ctx, "tk-late")
	if task.LocalID != id || task.State != api.StateQueueing {
		t.Errorf("after the late answer: %+v", task)
	}
	if ids := inFlightIDs(t, s); len(ids) != 1 || ids[0] != "tk-late" {
		t.Errorf("the reattached task is not in flight: %v", ids)
	}
	// The user found the id of another abandoned request: attach it too.
	other := mustBegin(t, s, `{"model":"svcq1","prompt":"q"}`)
	s.Abandon(ctx, other)
	if err := s.ResolveUnknown(ctx, other, "tk-found"); err != nil {
		t.Errorf("resolve of an abandoned request: %v", err)
	}
}
