package studio_test

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/internal/pgtest"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// Every copy on a team's database hears of every task's success, but saves
// only the results of the tasks sent from it: bob's copy, the account's
// poller, reads ann's image succeed and leaves it to ann's, which saves it
// (bob's detail then says where it was saved).
func TestTeamCopySavesOnlyItsOwnResults(t *testing.T) {
	isolated(t)
	url := pgtest.Get(t).Database(t, "", nil)
	clk := sandbox.NewFakeClock(wiringT0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, _, stop, err := sandbox.Listen(ctx, "", sandbox.Config{Clock: clk, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	fast := &track.Schedule{FirstPoll: time.Millisecond, MinInterval: time.Millisecond, MaxInterval: time.Millisecond,
		QueueCheckMin: time.Millisecond, QueueCheckMax: time.Millisecond, Slots: 5,
		Priors: map[api.Operation]time.Duration{api.OpReference2Image: time.Millisecond}}
	machine := func(sentBy string) *studio.Studio {
		cfg := resolved(t, studio.Config{HistoryURL: url, HistoryURLGiven: true, BaseURL: base, APIKey: "k-team"})
		s, err := studio.Open(ctx, cfg, studio.Options{Clock: clk.Now, SentBy: sentBy,
			Watcher: track.WatcherOptions{Clock: clk, RequestsPerSecond: 1000, Burst: 100, Schedule: fast}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		return s
	}
	bob := machine("bob@studio-2")
	ann := machine("ann@studio-1")
	sub, err := ann.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	endedOn(t, bob, clk, sub.Task.TaskID)
	endedOn(t, ann, clk, sub.Task.TaskID)
	saved, err := ann.Settle(ctx, sub.Task.TaskID)
	if err != nil || len(saved) == 0 || saved[0].Status != record.DownloadDone {
		t.Fatalf("ann's copy saved %+v (%v), want her image", saved, err)
	}
	mine, err := bob.Record().Downloads(ctx, sub.Task.TaskID)
	if err != nil || len(mine) != 0 {
		t.Errorf("bob's copy saved ann's image: %+v (%v)", mine, err)
	}
	task, err := bob.Record().TaskByID(ctx, sub.Task.TaskID)
	if err != nil || len(task.SavedOn) != 1 {
		t.Errorf("bob's detail: saved on %v (%v), want ann's copy", task.SavedOn, err)
	}
}
