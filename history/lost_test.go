package history

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func inFlightIDs(t *testing.T, s *Store) []string {
	t.Helper()
	tasks, err := s.InFlight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, task := range tasks {
		ids = append(ids, task.TaskID)
	}
	return ids
}

// Issue 11.8: repeated 404s stop the retrying across runs, not only within
// one. Each run here is a fresh Open of the same file.
func TestNotFoundRunLosesTaskAcrossRuns(t *testing.T) {
	ctx := context.Background()
	open := sharedDatabase(t)
	s := open()
	submitted(t, s, "tk-gone", `{}`)
	submitted(t, s, "tk-here", `{}`)
	for i := 1; i <= 2; i++ {
		n, err := s.RecordNotFound(ctx, "tk-gone", t0.Add(time.Duration(i)*time.Second), "TaskNotFound", 3, 0)
		if err != nil || n.Count != i || n.Lost() {
			t.Fatalf("404 #%d: %+v %v", i, n, err)
		}
	}
	s.Close()

	s = open() // the next run
	defer s.Close()
	for _, id := range []string{"tk-gone", "tk-here", "tk-unknown"} {
		if lost, err := s.LostTask(ctx, id); err != nil || lost {
			t.Errorf("%s before the third 404: lost %v, %v", id, lost, err)
		}
	}
	if ids := inFlightIDs(t, s); !slices.Equal(ids, []string{"tk-gone", "tk-here"}) {
		t.Fatalf("before the third 404, in flight %v", ids)
	}
	n, err := s.RecordNotFound(ctx, "tk-gone", t0.Add(time.Minute), "TaskNotFound", 3, 0)
	if err != nil || !n.Lost() || n.Count != 3 || !n.FirstAt.Equal(t0.Add(time.Second)) || n.State != api.StateCreated {
		t.Fatalf("third 404: %+v %v", n, err)
	}
	if lost, err := s.LostTask(ctx, "tk-gone"); err != nil || !lost {
		t.Errorf("after the third 404: lost %v, %v", lost, err)
	}
	if ids := inFlightIDs(t, s); !slices.Equal(ids, []string{"tk-here"}) {
		t.Errorf("a lost task is still in flight: %v", ids)
	}
	lost, err := s.LostTasks(ctx)
	if err != nil || len(lost) != 1 || lost[0].TaskID != "tk-gone" || lost[0].Reason != "TaskNotFound" || !lost[0].LostAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("lost tasks %+v %v", lost, err)
	}
	if task, _ := s.TaskByID(ctx, "tk-gone"); task.State != api.StateCreated {
		t.Errorf("a lost task changed state: %s", task.State)
	}
	if _, err := s.RecordNotFound(ctx, "tk-never", t0, "TaskNotFound", 3, 0); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("404 for an id history does not hold: %v", err)
	}
}

// Only 404s in a row count: an answer in between starts the run again.
func TestNotFoundRunEndsWithAnAnswer(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-1", `{}`)
	for i := 0; i < 2; i++ {
		if _, err := s.RecordNotFound(ctx, "tk-1", t0, "TaskNotFound", 3, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ClearNotFound(ctx, "tk-1"); err != nil {
		t.Fatal(err)
	}
	n, err := s.RecordNotFound(ctx, "tk-1", t0, "TaskNotFound", 3, 0)
	if err != nil || n.Count != 1 || n.Lost() {
		t.Errorf("after an answer: %+v %v", n, err)
	}
	if err := s.ClearNotFound(ctx, "tk-unknown"); err != nil {
		t.Errorf("clearing an id history does not hold: %v", err)
	}
}

// Issue 11.7: a state the spec does not name keeps the task in flight and
// in order with what the service says next; the known words for an ended
// task are final.
func TestUnknownStateStaysInFlight(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-pending", `{}`)
	submitted(t, s, "tk-cancelled", `{}`)
	for _, step := range []struct {
		id, state string
		changed   bool
	}{
		{"tk-pending", "pending", true},
		{"tk-pending", api.StateQueueing, true}, // unordered: the service's next word is taken
		{"tk-pending", "pending", true},
		{"tk-pending", api.StateSuccess, true},
		{"tk-pending", "pending", false}, // nothing leaves a final state
		{"tk-cancelled", api.StateProcessing, true},
		{"tk-cancelled", "canceled", true},
		{"tk-cancelled", api.StateSuccess, false},
	} {
		changed, err := s.ApplyResult(ctx, step.id, record.Update{State: step.state})
		if err != nil || changed != step.changed {
			t.Errorf("%s -> %s: changed %v, want %v (%v)", step.id, step.state, changed, step.changed, err)
		}
		if step.id == "tk-pending" && step.state == "pending" && step.changed {
			if ids := inFlightIDs(t, s); !slices.Contains(ids, "tk-pending") {
				t.Errorf("a task in an unknown state is not in flight: %v", ids)
			}
		}
	}
	if ids := inFlightIDs(t, s); len(ids) != 0 {
		t.Errorf("in flight after success and canceled: %v", ids)
	}
}

// Issue 19.1: a run of answers makes a task lost only once it has lasted
// the window as well, over runs: a burst of answers in a gateway blip does
// not.
func TestNotFoundNeedsTheWindowToo(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-1", `{}`)
	for i := 0; i < 5; i++ {
		n, err := s.RecordNotFound(ctx, "tk-1", t0.Add(time.Duration(i)*time.Minute), "TaskNotFound", 3, 10*time.Minute)
		if err != nil || n.Lost() {
			t.Fatalf("answer %d, %d minutes into the run: %+v %v", i+1, i, n, err)
		}
	}
	n, err := s.RecordNotFound(ctx, "tk-1", t0.Add(10*time.Minute), "TaskNotFound", 3, 10*time.Minute)
	if err != nil || !n.Lost() {
		t.Errorf("ten minutes into the run: %+v %v", n, err)
	}
}
