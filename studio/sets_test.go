package studio_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// A set started in the background of a running studio (the TUI's
// variations) keeps at most five at the service, shows the rest waiting
// on our side, and sends every line once as room frees up.
func TestStartSetQueuesPastFiveAndSendsEachOnce(t *testing.T) {
	s, clk := startedSetStudio(t)
	ctx := context.Background()
	body := map[string]any{"model": "svcq2", "prompt": "a lighthouse"}
	reqs, err := studio.SeedVariations(api.OpReference2Image, body, 7)
	if err != nil {
		t.Fatal(err)
	}
	id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", "seven", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err != nil {
		t.Fatal(err)
	}
	sent := func() int {
		members, err := s.Record().SetMembers(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range members {
			if m.LocalID != 0 {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for (sent() < 5 || len(s.SetActivity(id).Waiting) > 2) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // room for a sixth send, were it wrongly allowed
	a := s.SetActivity(id)
	if n := sent(); n != 5 || !a.Running || len(a.Waiting) != 2 || !a.Waiting[6] || !a.Waiting[7] || s.SetsWaiting() != 2 {
		t.Fatalf("before any ends: %d sent, activity %+v; want 5 at the service and lines 6, 7 waiting here", n, a)
	}
	for (sent() < 7 || s.SetActivity(id).Running) && time.Now().Before(deadline) {
		clk.Advance(20 * time.Minute)
		time.Sleep(10 * time.Millisecond)
	}
	if n, a := sent(), s.SetActivity(id); n != 7 || a.Running {
		t.Fatalf("after the first ended: %d of 7 sent, activity %+v", n, a)
	}
	members, _ := s.Record().SetMembers(ctx, id)
	seen := map[int64]bool{}
	for _, m := range members {
		if seen[m.LocalID] {
			t.Fatalf("line %d shares task #%d with another line", m.Line, m.LocalID)
		}
		seen[m.LocalID] = true
	}
	if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err != nil {
		t.Fatalf("a set taken up again: %v", err)
	}
}

// Seeds are distinct and labelled; an operation without a seed is
// refused with a reason; values are typed by their field and every broken
// version is listed.
func TestVariationsRules(t *testing.T) {
	body := map[string]any{"model": "svcq2", "prompt": "a lighthouse"}
	reqs, err := studio.SeedVariations(api.OpReference2Image, body, 16)
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string]bool{}
	for i, r := range reqs {
		if r.Line != i+1 || r.Label != "seed="+r.Body["seed"].(interface{ String() string }).String() {
			t.Fatalf("version %d: line %d label %q seed %v", i+1, r.Line, r.Label, r.Body["seed"])
		}
		seeds[r.Label] = true
	}
	if len(seeds) != 16 || body["seed"] != nil {
		t.Fatalf("%d distinct seeds of 16; the request itself changed: %v", len(seeds), body)
	}
	if _, err := studio.SeedVariations(api.OpReference2Image, body, 1); err == nil || !strings.Contains(err.Error(), "2 to 50") {
		t.Fatalf("one version: %v", err)
	}
	if _, err := studio.SeedVariations(api.OpAudioTTS, map[string]any{}, 4); err == nil || !strings.Contains(err.Error(), "no seed") {
		t.Fatalf("no seed field: %v", err)
	}
	video := map[string]any{"model": "svcq3-turbo", "prompt": "a red mug turning"}
	reqs, err = studio.ValueVariations(studio.Config{}, api.OpText2Video, video, "duration", []string{"5", "8"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[1].Label != "duration=8" || reqs[1].Body["duration"] != int64(8) && reqs[1].Body["duration"].(interface{ String() string }).String() != "8" {
		t.Fatalf("durations: %+v", reqs)
	}
	_, err = studio.ValueVariations(studio.Config{}, api.OpText2Video, video, "duration", []string{"5", "99", "98"}, nil)
	var broken *studio.VariationsError
	if !errors.As(err, &broken) || len(broken.Problems) != 2 || !strings.Contains(broken.Problems[0], "version 2 (duration=99): duration") {
		t.Fatalf("broken versions: %v", err)
	}
	if _, err := studio.ValueVariations(studio.Config{}, api.OpText2Video, video, "nope", []string{"a", "b"}, nil); err == nil || !strings.Contains(err.Error(), "no such field") {
		t.Fatalf("unknown field: %v", err)
	}
}

// Two sets sent one after the other share the service's five: the second
// waits on our side while the first fills them, and goes on as they end.
func TestSetsShareTheFiveSlots(t *testing.T) {
	s, clk := startedSetStudio(t)
	ctx := context.Background()
	var ids []int64
	for range 2 {
		reqs, err := studio.SeedVariations(api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"}, 4)
		if err != nil {
			t.Fatal(err)
		}
		id, _, err := s.Record().OpenSet(ctx, record.SetVariations, "", "four", studio.SetMembers(reqs))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.StartSet(s.NewSetRun(id, "variations", reqs)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	sent := func() int {
		n := 0
		for _, id := range ids {
			members, err := s.Record().SetMembers(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range members {
				if m.LocalID != 0 {
					n++
				}
			}
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for (sent() < 5 || s.SetsWaiting() > 3) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // room for a sixth send, were it wrongly allowed
	if n, w := sent(), s.SetsWaiting(); n != 5 || w != 3 {
		t.Fatalf("before any ends: %d sent, %d waiting here; want 5 and 3", n, w)
	}
	for (sent() < 8 || s.SetsWaiting() > 0) && time.Now().Before(deadline) {
		clk.Advance(20 * time.Minute)
		time.Sleep(10 * time.Millisecond)
	}
	if n := sent(); n != 8 {
		t.Fatalf("after the first ended: %d of 8 sent", n)
	}
}

// startedSetStudio is a started studio on the embedded sandbox and a fake
// clock, read back every simulated second, for the tests of set runs.
func startedSetStudio(t *testing.T) (*studio.Studio, *sandbox.FakeClock) {
	t.Helper()
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{}), studio.Options{Clock: clk.Now,
		Sandbox: &sandbox.Config{Clock: clk, Seed: 11}, Watcher: track.WatcherOptions{Clock: clk, RequestsPerSecond: 1000, Burst: 100,
			Schedule: &track.Schedule{FirstPoll: time.Second, MinInterval: time.Second, MaxInterval: time.Second,
				QueueCheckMin: time.Second, QueueCheckMax: time.Second, Slots: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, clk
}
