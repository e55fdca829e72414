package studio_test

import (
	"context"
	"testing"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/studio"
)

// A multi-scene job costs what the review quoted, in its task's credits:
// the service answers with an id alone, and a job counted free would be
// missing from every list, total and chart.
func TestMultiSceneJobRecordsItsCredits(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, resolved(t, studio.Config{}), clk)
	body := map[string]any{"prompt": "a day at the sea", "duration": 30, "images": []any{"https://x/1.png"}}
	want := s.Price(api.OpGeneralOneClick, body)
	if !want.Known || want.Credits <= 0 {
		t.Fatalf("the sandbox quotes %+v", want)
	}
	sub, err := s.Submit(context.Background(), api.OpGeneralOneClick, body)
	if err != nil {
		t.Fatal(err)
	}
	task, err := s.Record().Task(context.Background(), sub.LocalID)
	if err != nil {
		t.Fatal(err)
	}
	if task.Credits != want.Credits {
		t.Errorf("the job's task records %d credits, the review quoted %d", task.Credits, want.Credits)
	}
}
