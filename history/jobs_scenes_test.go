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

// savedJobTask records job-1 as a general_one_click task and saves its
// record with the given state.
func savedJobTask(t *testing.T, s *Store, state string) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpGeneralOneClick, Body: []byte(`{"prompt":"a day at sea","duration":10,"images":[]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "job-1"}); err != nil {
		t.Fatal(err)
	}
	j := decodeJob(t, jobJSON)
	j.State = state
	for i := range j.JobRecords {
		for k := range j.JobRecords[i].Jobs {
			j.JobRecords[i].Jobs[k].State = api.StateSuccess
		}
	}
	if _, err := s.SaveJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	return id
}

// A choice is kept per scene, only for a version of that scene, and ""
// goes back to the default.
func TestChooseVersion(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	savedJobTask(t, s, api.StateSuccess)
	if err := s.ChooseVersion(ctx, "job-1", 1, "s1-v1"); err != nil {
		t.Fatal(err)
	}
	if err := s.ChooseVersion(ctx, "job-1", 1, "s0-v1"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("a version of another scene chosen: %v", err)
	}
	if err := s.ChooseVersion(ctx, "job-1", 0, "s0-v1"); err != nil {
		t.Fatal(err)
	}
	j, err := s.Job(ctx, "job-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Choices) != 2 || j.Choices[1] != "s1-v1" || j.Choices[0] != "s0-v1" {
		t.Errorf("choices %v", j.Choices)
	}
	if err := s.ChooseVersion(ctx, "job-1", 0, ""); err != nil {
		t.Fatal(err)
	}
	if j, _ = s.Job(ctx, "job-1"); len(j.Choices) != 1 {
		t.Errorf("choices after a reset %v", j.Choices)
	}
}

// A version added after an edit is the newest of its scene, shows at once,
// makes the settled job busy (so a restart follows it) until a read says it
// ended; the service's record then replaces it.
func TestAddVersionMakesTheJobBusy(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	localID := savedJobTask(t, s, api.StateSuccess)
	if busy, err := s.BusyJobs(ctx); err != nil || len(busy) != 0 {
		t.Fatalf("busy before the edit: %v %v", busy, err)
	}
	clk.Advance(time.Minute)
	if err := s.AddVersion(ctx, "job-1", api.RecordGenerateVideo, 0, record.SubJob{ID: "s0-v2", Prompt: "boat returns", Duration: 5}); err != nil {
		t.Fatal(err)
	}
	// Twice is once.
	if err := s.AddVersion(ctx, "job-1", api.RecordGenerateVideo, 0, record.SubJob{ID: "s0-v2", Prompt: "boat returns"}); err != nil {
		t.Fatal(err)
	}
	j, err := s.Job(ctx, "job-1")
	if err != nil {
		t.Fatal(err)
	}
	cur := j.Scenes[0].Current()
	if len(j.Scenes[0].Jobs) != 2 || cur.ID != "s0-v2" || cur.State != api.StateCreated || cur.Prompt != "boat returns" ||
		!cur.CreatedAt.Equal(clk.Now()) {
		t.Fatalf("scene 0 %+v", j.Scenes[0])
	}
	busy, err := s.BusyJobs(ctx)
	if err != nil || len(busy) != 1 || busy[0].LocalID != localID || busy[0].TaskID != "job-1" {
		t.Fatalf("busy %+v %v", busy, err)
	}
	sums, err := s.JobSummaries(ctx, 10)
	if err != nil || len(sums) != 1 || sums[0].Busy != 1 || sums[0].Scenes != 2 || sums[0].Versions != 4 ||
		sums[0].LocalID != localID || sums[0].State != api.StateSuccess || sums[0].Prompt != "a day at sea" {
		t.Fatalf("summaries %+v %v", sums, err)
	}

	// The service's record lists it, done.
	later := decodeJob(t, jobJSON)
	later.State = api.StateSuccess
	later.JobRecords = append(later.JobRecords[:1:1], later.JobRecords[1:]...)
	later.JobRecords[0].Jobs = append(later.JobRecords[0].Jobs, api.Job{ID: "s0-v2", Type: api.RecordGenerateVideo,
		State: api.StateSuccess, MVGenerateVideoInput: &api.SceneInput{Duration: 5, Prompt: "boat returns"}})
	for i := range later.JobRecords {
		for k := range later.JobRecords[i].Jobs {
			later.JobRecords[i].Jobs[k].State = api.StateSuccess
		}
	}
	changed, err := s.SaveJob(ctx, later)
	if err != nil || !changed {
		t.Fatalf("the edit's end: changed %v, %v", changed, err)
	}
	if busy, _ := s.BusyJobs(ctx); len(busy) != 0 {
		t.Errorf("still busy: %+v", busy)
	}
	j, _ = s.Job(ctx, "job-1")
	var ids []string
	for _, v := range j.Scenes[0].Jobs {
		ids = append(ids, v.ID+":"+v.State)
	}
	if !slices.Equal(ids, []string{"s0-v1:success", "s0-v2:success"}) {
		t.Errorf("scene 0 versions %v", ids)
	}
}

// A job read by id that no task made is listed too.
func TestJobSummariesListsJobsWithoutTask(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if _, err := s.SaveJob(ctx, decodeJob(t, jobJSON)); err != nil {
		t.Fatal(err)
	}
	sums, err := s.JobSummaries(ctx, 10)
	if err != nil || len(sums) != 1 || sums[0].LocalID != 0 || sums[0].JobID != "job-1" || sums[0].State != api.StateProcessing ||
		sums[0].Busy != 2 {
		t.Fatalf("summaries %+v %v", sums, err)
	}
}

// A version's file is claimed once; a failed or stale claim is taken over.
func TestVersionDownloads(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	savedJobTask(t, s, api.StateSuccess)
	ok, err := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/a.mp4", time.Minute)
	if err != nil || !ok {
		t.Fatalf("first claim %v %v", ok, err)
	}
	if ok, _ := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/a.mp4", time.Minute); ok {
		t.Error("claimed twice")
	}
	if err := s.FinishVersionDownload(ctx, "c-v1", "", 0, errors.New("boom")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/a.mp4", time.Minute); !ok {
		t.Error("a failed download not taken over")
	}
	clk.Advance(2 * time.Minute)
	if ok, _ := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/b.mp4", time.Minute); !ok {
		t.Error("a stale download not taken over")
	}
	if err := s.FinishVersionDownload(ctx, "c-v1", "/dl/b (2).mp4", 42, nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.StartVersionDownload(ctx, "job-1", "c-v1", "/dl/b.mp4", 0); ok {
		t.Error("a done download claimed again")
	}
	j, _ := s.Job(ctx, "job-1")
	d := j.Compose[0].Current().Download
	if d == nil || d.Status != record.DownloadDone || d.Path != "/dl/b (2).mp4" || d.Bytes != 42 {
		t.Errorf("download %+v", d)
	}
	if err := s.FinishVersionDownload(ctx, "nope", "", 0, nil); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("finish unknown: %v", err)
	}
}
