package studio_test

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// A set's versions sent onward are each tied to the task they came from.
func TestSetVersionsKeepTheirParent(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{}), studio.Options{Clock: clk.Now,
		Sandbox: &sandbox.Config{Clock: clk, Seed: 11}, Watcher: track.WatcherOptions{Clock: clk, RequestsPerSecond: 1000, Burst: 100}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	image, err := s.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := studio.SeedVariations(api.OpImg2Video, map[string]any{"model": "svcq3-turbo", "images": []any{"https://x/l.png"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		reqs[i].Parent = &record.Parent{LocalID: image.LocalID, Field: "images[0]"}
	}
	id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", "two", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err != nil {
		t.Fatal(err)
	}
	var members []record.SetMember
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if members, err = s.Record().SetMembers(ctx, id); err == nil && members[0].LocalID != 0 && members[1].LocalID != 0 {
			break
		}
	}
	for _, m := range members {
		got, err := s.Record().Task(ctx, m.LocalID)
		if err != nil || got.From == nil || got.From.LocalID != image.LocalID || got.From.Field != "images[0]" {
			t.Fatalf("line %d (#%d): from %+v, %v", m.Line, m.LocalID, got.From, err)
		}
	}
}
