package scenes

import "testing"

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
