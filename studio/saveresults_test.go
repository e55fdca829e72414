package studio_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

// A task is saved under the day it was created, whoever saves it and
// whenever: the TUI's relay, clapper watch and an agent name one task's
// file alike (the CLI once named it by the day it was watched).
func TestSaveResultsNamesByTheTasksCreation(t *testing.T) {
	created := time.Date(2026, 11, 24, 23, 50, 0, 0, time.UTC)
	clk := sandbox.NewFakeClock(created)
	dir := t.TempDir()
	cfg := studio.Config{DataDir: dir, DownloadDir: filepath.Join(dir, "out"), Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4}
	s, err := studio.Open(context.Background(), cfg, studio.Options{Clock: clk.Now, SendOnly: true, Sandbox: &sandbox.Config{Clock: clk, Seed: 11}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	id, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Model: "svcq1", Body: []byte(`{"model":"svcq1","prompt":"p"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "t-late", State: api.StateProcessing, CreatedAt: created}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(48 * time.Hour) // watched two days later
	if _, err := s.Record().ApplyResult(ctx, "t-late", record.Update{State: api.StateSuccess,
		Creations: []record.Creation{{URL: "https://cdn.example/v.mp4"}}, ObservedAt: clk.Now()}); err != nil {
		t.Fatal(err)
	}
	res := &api.TaskResult{ID: "t-late", State: api.StateSuccess, Creations: []api.Creation{{URL: "https://cdn.example/v.mp4"}}}
	if err := s.SaveResults(ctx, "t-late", res); err != nil {
		t.Fatal(err)
	}
	dls, err := s.Record().Downloads(ctx, "t-late")
	if err != nil || len(dls) != 1 {
		t.Fatalf("downloads %+v, %v", dls, err)
	}
	if name := filepath.Base(dls[0].Path); !strings.HasPrefix(name, "2026-11-24_text2video_t-late_1.") {
		t.Errorf("saved as %s, want the day the task was created (2026-11-24)", name)
	}
}

// A set's line saved after the run (clapper batch) has no result at hand:
// SaveResults saves what history holds of the task, and says a task with
// nothing to save yet has none.
func TestSaveResultsWithNoResultAtHandSavesWhatHistoryHolds(t *testing.T) {
	clk := sandbox.NewFakeClock(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	cfg := studio.Config{DataDir: dir, DownloadDir: filepath.Join(dir, "out"), Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4}
	s, err := studio.Open(context.Background(), cfg, studio.Options{Clock: clk.Now, SendOnly: true, Sandbox: &sandbox.Config{Clock: clk, Seed: 11}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, taskID := range []string{"t-done", "t-running"} {
		id, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Model: "svcq2", Body: []byte(`{"model":"svcq2","prompt":"p"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Record().MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: taskID, State: api.StateProcessing, CreatedAt: clk.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Record().ApplyResult(ctx, "t-done", record.Update{State: api.StateSuccess, ObservedAt: clk.Now(),
		Creations: []record.Creation{{Index: 0, URL: "https://cdn.example/a.png"}, {Index: 1, URL: "https://cdn.example/b.png"}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveResults(ctx, "t-done", nil); err != nil {
		t.Fatal(err)
	}
	if dls, err := s.Record().Downloads(ctx, "t-done"); err != nil || len(dls) != 2 {
		t.Fatalf("downloads %+v, %v; want the two images history holds", dls, err)
	}
	if err := s.SaveResults(ctx, "t-running", nil); err == nil || !strings.Contains(err.Error(), "task t-running has no result to download yet") {
		t.Fatalf("a task with no result yet: %v", err)
	}
}
