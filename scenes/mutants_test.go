package scenes

import (
	"errors"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// An edit of a scene costs what the service charges for a scene of its
// length (the service reports no credits for a job): the job's task, as
// the history and the spending totals show it, costs that much more.
func TestAnEditIsChargedToItsJobsTask(t *testing.T) {
	r := newRig(t)
	jobID := r.create()
	before, err := r.svc.Store.TaskByID(t.Context(), jobID)
	if err != nil {
		t.Fatal(err)
	}
	scene := r.job(jobID).Scenes[1].Jobs[0]
	r.svc.EditCredits = func(seconds int) int64 { return int64(seconds) * 3 }
	r.edit(jobID, scene.ID, "a storm rolls in")
	after, err := r.svc.Store.TaskByID(t.Context(), jobID)
	if err != nil {
		t.Fatal(err)
	}
	if want := before.Credits + int64(scene.Duration)*3; scene.Duration == 0 || after.Credits != want {
		t.Errorf("after an edit of a %d s scene the job costs %d credits, want %d", scene.Duration, after.Credits, want)
	}
}

// Versions named for a composition are one per scene and of this job;
// while one is being made the job is running; the newest successful
// composition is the job's cut, named by its version.
func TestComposeNamedVersionsAndTheLastCut(t *testing.T) {
	r := newRig(t)
	jobID := r.create()
	j := r.job(jobID)
	if Running(j) {
		t.Error("a finished job is running")
	}
	if v, label, ok := LastCut(j); !ok || label != "v1" || v.ID != j.Compose[0].Jobs[0].ID {
		t.Errorf("the first cut: %+v %q %v", v, label, ok)
	}
	s1, s2, s3 := j.Scenes[0].Jobs[0].ID, j.Scenes[1].Jobs[0].ID, j.Scenes[2].Jobs[0].ID
	a1 := r.edit(jobID, s1, "the boat leaves at dawn")
	if !Running(r.job(jobID)) {
		t.Error("a job with an edit being made is not running")
	}
	r.until("edit", r.versionDone(jobID, a1))
	for _, bad := range [][]string{{s1, a1, s2}, {s1, "nope", s3}} {
		if _, _, err := r.svc.Compose(t.Context(), jobID, bad); !errors.As(err, new(*InputError)) {
			t.Errorf("compose %v: %v, want it refused", bad, err)
		}
	}
	id, sent, err := r.svc.Compose(t.Context(), jobID, []string{s1, s2, s3})
	if err != nil || !slices.Equal(sent, []string{s1, s2, s3}) {
		t.Fatalf("compose the first versions: %v %v", sent, err)
	}
	if v, label, _ := LastCut(r.job(jobID)); label != "v1" || v.ID == id {
		t.Errorf("a cut being made is not the cut yet: %s %s", v.ID, label)
	}
	r.until("composition", r.versionDone(jobID, id))
	if v, label, ok := LastCut(r.job(jobID)); !ok || label != "v2" || v.ID != id {
		t.Errorf("the second cut: %s %q %v, want %s v2", v.ID, label, ok, id)
	}
}

// Wait follows a version until it ends and tells each state it reaches
// once, in order, however often it reads the job (what `clapper scenes edit --wait` prints); a job the
// history does not hold is an error at once.
func TestWaitTellsEachStateOnce(t *testing.T) {
	r := newRig(t)
	jobID := r.create()
	a1 := r.edit(jobID, r.job(jobID).Scenes[0].Jobs[0].ID, "the boat leaves at dawn")
	// Nudges every few milliseconds: Wait reads the job many times
	// within one state.
	r.svc.NudgeEvery = 5 * time.Millisecond
	var states []string
	done := make(chan error, 1)
	var got record.SubJob
	go func() {
		var err error
		got, err = r.svc.Wait(t.Context(), jobID, a1, func(v record.SubJob, readErr error) {
			if readErr == nil {
				states = append(states, v.State)
			}
		})
		done <- err
	}()
	for i := 0; ; i++ {
		select {
		case err := <-done:
			if err != nil || got.ID != a1 || got.State != api.StateSuccess {
				t.Fatalf("Wait: %+v %v", got, err)
			}
			if len(states) < 2 || states[len(states)-1] != api.StateSuccess || slices.Contains(states[:len(states)-1], api.StateSuccess) {
				t.Errorf("states told %v, want each once ending in success", states)
			}
			for k := 1; k < len(states); k++ {
				if states[k] == states[k-1] {
					t.Errorf("states told %v: %s twice", states, states[k])
				}
			}
			// A version that ended already is told once, with the
			// default nudges.
			r.svc.NudgeEvery = 0
			states = nil
			if v, err := r.svc.Wait(t.Context(), jobID, a1, func(v record.SubJob, _ error) { states = append(states, v.State) }); err != nil || v.ID != a1 || !slices.Equal(states, []string{api.StateSuccess}) {
				t.Errorf("Wait on a finished version: %+v %v, told %v", v, err, states)
			}
			if _, err := r.svc.Wait(t.Context(), "no-such-job", "v", nil); err == nil {
				t.Error("Wait on a job the history does not hold")
			}
			return
		default:
		}
		if i > 2000 {
			t.Fatal("Wait did not return")
		}
		r.clock.Advance(2 * time.Second)
		r.srv.Advance()
		r.svc.Watcher.Step(t.Context())
		time.Sleep(time.Millisecond)
	}
}
