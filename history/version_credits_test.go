package history

import (
	"context"
	"testing"

	"clapper/api"
	"clapper/record"
)

// A scene edit's charge counts on its job's task while the version is made
// or done; a version that fails gives it back, once, however often the job
// is read afterwards; a version that succeeds keeps it.
func TestFailedEditGivesItsCreditsBack(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	localID := savedJobTask(t, s, api.StateSuccess)
	credits := func() int64 {
		t.Helper()
		task, err := s.Task(ctx, localID)
		if err != nil {
			t.Fatal(err)
		}
		return task.Credits
	}
	base := credits()
	// Charges that differ tell which version gave its charge back.
	for v, charge := range map[string]int64{"s0-v2": 30, "s1-v2": 45} {
		if err := s.AddVersion(ctx, "job-1", api.RecordGenerateVideo, 0, record.SubJob{ID: v, Prompt: "again", Duration: 5}); err != nil {
			t.Fatal(err)
		}
		if err := s.ChargeVersion(ctx, localID, v, charge); err != nil {
			t.Fatal(err)
		}
	}
	if got := credits(); got != base+75 {
		t.Fatalf("after two edits sent: %d credits, want %d", got, base+75)
	}
	read := decodeJob(t, jobJSON)
	read.State = api.StateSuccess
	read.JobRecords[0].Jobs = append(read.JobRecords[0].Jobs,
		api.Job{ID: "s0-v2", Type: api.RecordGenerateVideo, State: api.StateFailed, MVGenerateVideoInput: &api.SceneInput{Duration: 5}},
		api.Job{ID: "s1-v2", Type: api.RecordGenerateVideo, State: api.StateSuccess, MVGenerateVideoInput: &api.SceneInput{Duration: 5}})
	for range 3 {
		if _, err := s.SaveJob(ctx, read); err != nil {
			t.Fatal(err)
		}
		if got := credits(); got != base+45 {
			t.Fatalf("after the failed edit was read: %d credits, want %d (the failed one's 30 given back once)", got, base+45)
		}
	}
	if err := s.ChargeVersion(ctx, localID, "no-such-version", 30); err == nil {
		t.Error("a charge for a version history does not hold was taken")
	}
}
