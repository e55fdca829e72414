package history

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// jobJSON is a multi-scene record in the wire format: two scenes, the second
// edited once, and one composition.
const jobJSON = `{
  "id": "job-1", "type": "one_click", "creator_id": "acct", "state": "processing",
  "input": {"prompt": "a day at sea"}, "created_at": "2025-03-04T10:30:00.5Z",
  "updated_at": "2025-03-04T10:31:00Z", "err_code": "", "err_msg": "", "signed_url": "",
  "job_records": [
    {"type": "generate_video", "index": 0, "jobs": [
      {"id": "s0-v1", "type": "generate_video", "state": "success", "index": 0,
       "signed_url": "https://r/s0v1.mp4", "created_at": "2025-03-04T10:30:01Z",
       "mv_generate_video_input": {"duration": 5, "prompt": "boat leaves", "lyric_text": "la",
         "signed_images": ["https://r/i0.png"]}}]},
    {"type": "generate_video", "index": 1, "jobs": [
      {"id": "s1-v1", "type": "generate_video", "state": "success", "index": 1,
       "mv_generate_video_input": {"duration": "4", "prompt": "storm"}},
      {"id": "s1-v2", "type": "generate_video", "state": "processing", "index": 1,
       "mv_generate_video_input": {"duration": 4, "prompt": "calm storm"}}]},
    {"type": "compose", "index": 0, "jobs": [
      {"id": "c-v1", "type": "compose", "state": "created", "index": 0}]}
  ]
}`

func decodeJob(t *testing.T, s string) api.OneClickJob {
	t.Helper()
	var j api.OneClickJob
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		t.Fatal(err)
	}
	j.Raw = json.RawMessage(s)
	return j
}

func TestSaveJobAndRead(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	j := decodeJob(t, jobJSON)
	changed, err := s.SaveJob(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if !changed {
		t.Error("new versions saved, yet not changed")
	}
	if changed, err := s.SaveJob(ctx, j); err != nil || changed {
		t.Errorf("the same record again: changed %v, %v", changed, err)
	}
	got, err := s.Job(ctx, "job-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "job-1" || got.LocalID != 0 || got.Type != "one_click" || got.CreatorID != "acct" ||
		got.State != "processing" || got.Input != `{"prompt": "a day at sea"}` ||
		!got.CreatedAt.Equal(time.Date(2025, 3, 4, 10, 30, 0, 500e6, time.UTC)) ||
		!got.FetchedAt.Equal(t0) || !got.SignedURLExpiresAt.IsZero() || string(got.Raw) != jobJSON {
		t.Errorf("job %+v", got)
	}
	if len(got.Scenes) != 2 || len(got.Compose) != 1 {
		t.Fatalf("scenes %+v compose %+v", got.Scenes, got.Compose)
	}
	s0 := got.Scenes[0].Current()
	if s0.ID != "s0-v1" || s0.Prompt != "boat leaves" || s0.LyricText != "la" || s0.Duration != 5 ||
		!slices.Equal(s0.Images, []string{"https://r/i0.png"}) || s0.SignedURL != "https://r/s0v1.mp4" ||
		!s0.SignedURLExpiresAt.Equal(t0.Add(SignedURLLifetime)) ||
		!s0.CreatedAt.Equal(time.Date(2025, 3, 4, 10, 30, 1, 0, time.UTC)) {
		t.Errorf("scene 0 %+v", s0)
	}
	var history []string
	for _, v := range got.Scenes[1].Jobs {
		history = append(history, v.ID+":"+v.Prompt)
	}
	if !slices.Equal(history, []string{"s1-v1:storm", "s1-v2:calm storm"}) || got.Scenes[1].Index != 1 {
		t.Errorf("scene 1 history %v", history)
	}
	if got.Compose[0].Current().ID != "c-v1" || got.Compose[0].Current().State != "created" {
		t.Errorf("compose %+v", got.Compose)
	}
	if (record.JobRecord{}).Current().ID != "" {
		t.Error("Current of an empty record")
	}
	if _, err := s.Job(ctx, "nope"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("unknown job: %v", err)
	}
	if _, err := s.SaveJob(ctx, api.OneClickJob{}); err == nil {
		t.Error("saved a job without an id")
	}
}

// A re-read updates versions in place, adds new ones and keeps versions the
// service stopped listing.
func TestSaveJobUpdatesAndKeepsHistory(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	if _, err := s.SaveJob(ctx, decodeJob(t, jobJSON)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	later := decodeJob(t, jobJSON)
	later.State = api.StateSuccess
	later.SignedURL = "https://r/final.mp4"
	later.JobRecords = []api.JobRecord{
		{Type: api.RecordGenerateVideo, Index: 1, Jobs: []api.Job{
			{ID: "s1-v2", Type: "generate_video", State: "success", Index: 1,
				MVGenerateVideoInput: &api.SceneInput{Duration: 4, Prompt: "calm storm"}},
			{ID: "s1-v3", Type: "generate_video", State: "created", Index: 1,
				MVGenerateVideoInput: &api.SceneInput{Duration: 4, Prompt: "no storm"}},
		}},
	}
	if _, err := s.SaveJob(ctx, later); err != nil {
		t.Fatal(err)
	}
	got, err := s.Job(ctx, "job-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != api.StateSuccess || got.SignedURL != "https://r/final.mp4" ||
		!got.SignedURLExpiresAt.Equal(clk.Now().Add(SignedURLLifetime)) || len(got.Scenes) != 2 {
		t.Fatalf("job %+v", got)
	}
	var history []string
	for _, v := range got.Scenes[1].Jobs {
		history = append(history, v.ID+":"+v.State)
	}
	// s1-v1 is no longer listed but stays; s1-v2 moved to position 0.
	if !slices.Contains(history, "s1-v1:success") || !slices.Contains(history, "s1-v2:success") ||
		history[len(history)-1] != "s1-v3:created" {
		t.Errorf("scene 1 history %v", history)
	}
	if got.Scenes[1].Current().Prompt != "no storm" {
		t.Errorf("current %+v", got.Scenes[1].Current())
	}
}

// When the job is a task of the history, saving the job moves the task and
// makes the composed video a downloadable creation.
func TestSaveJobFollowsTask(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpGeneralOneClick, Body: []byte(`{"prompt":"sea","duration":10,"images":[]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "job-1"}); err != nil {
		t.Fatal(err)
	}
	j := decodeJob(t, jobJSON)
	for _, step := range []struct {
		state, url string
		changed    bool
	}{
		{api.StateProcessing, "", true},
		{api.StateProcessing, "", false},
		{api.StateCreated, "", false}, // stale
		{api.StateSuccess, "https://r/final.mp4?sig=1", true},
		{api.StateSuccess, "https://r/final.mp4?sig=2", false}, // re-read for a fresh URL
	} {
		clk.Advance(time.Minute)
		j.State, j.SignedURL = step.state, step.url
		changed, err := s.SaveJob(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		if changed != step.changed {
			t.Errorf("%s: changed %v, want %v", step.state, changed, step.changed)
		}
	}
	task, err := s.Task(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if task.State != api.StateSuccess || string(task.Result) != jobJSON {
		t.Errorf("task %+v", task)
	}
	want := []string{">submitting", "submitting>created", "created>processing", "processing>success"}
	if got := states(task.Events); !slices.Equal(got, want) {
		t.Errorf("events %v", got)
	}
	if len(task.Creations) != 1 || task.Creations[0].URL != "https://r/final.mp4?sig=2" ||
		!task.Creations[0].URLExpiresAt.Equal(clk.Now().Add(SignedURLLifetime)) {
		t.Errorf("creations %+v", task.Creations)
	}
	got, _ := s.Job(ctx, "job-1")
	if got.LocalID != id {
		t.Errorf("job's local id %d, want %d", got.LocalID, id)
	}
	if _, err := s.QueueDownload(ctx, "job-1", 0, record.KindURL, "/dl/final.mp4"); err != nil {
		t.Errorf("composed video not downloadable: %v", err)
	}
}
