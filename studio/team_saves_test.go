package studio_test

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/studio"
	"clapper/track"
)

// Every copy on a team's database hears of every task's success, but saves
// only the results of the tasks sent from it: bob's copy, hearing that
// ann's image succeeded, leaves it to ann's, which saves it.
func TestTeamCopySavesOnlyItsOwnResults(t *testing.T) {
	tm := newTeam(t)
	ctx, clk := context.Background(), tm.clk
	autoDownload := func(c *studio.Config) { c.AutoDownload = true }
	bob, ann := tm.copy(t, "bob@studio-2", autoDownload), tm.copy(t, "ann@studio-1", autoDownload)
	sub, err := ann.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.TaskID
	clk.Advance(10 * time.Minute)
	ann.Poll(ctx)
	done, err := ann.Record().TaskByID(ctx, id)
	if err != nil || done.State != api.StateSuccess || len(done.Creations) == 0 {
		t.Fatalf("the image did not finish: %+v %v", done, err)
	}
	success := studio.Event{Kind: track.EventState, TaskID: id, Operation: api.OpReference2Image, From: api.StateProcessing,
		To: api.StateSuccess, Result: &api.TaskResult{ID: id, State: api.StateSuccess, Creations: []api.Creation{{URL: done.Creations[0].URL}}}}
	queued := func(s *studio.Studio) int {
		ds, err := s.Record().Downloads(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return len(ds)
	}
	if err := bob.SaveEventForTest(ctx, success); err != nil || queued(bob) != 0 {
		t.Errorf("bob's copy queued %d of ann's results (%v), want none", queued(bob), err)
	}
	if err := ann.SaveEventForTest(ctx, success); err != nil || queued(ann) != 1 {
		t.Errorf("ann's copy queued %d of her results (%v), want 1", queued(ann), err)
	}
}
