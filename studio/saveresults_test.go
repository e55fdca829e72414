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
