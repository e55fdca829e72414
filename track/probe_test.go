package track

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"clapper/api"
)

// A task seen queueing and then processing started, as early as the reads
// can tell, right after the read that last saw it queueing: its window is
// counted from there, not from the read that saw it processing.
func TestARunCountsFromTheLastReadBeforeItsStart(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(10 * time.Second)}, 1)
	svc.states[ids[0]] = []string{"queueing", "queueing", "processing"}
	var seen []time.Time
	for _, e := range run(t, w, clk, t0.Add(35*time.Second)) {
		seen = append(seen, e.At)
	}
	reads := svc.reads[ids[0]]
	w.mu.Lock()
	task := w.tasks[ids[0]]
	running, last := task.running, task.lastRead
	w.mu.Unlock()
	if reads != 3 || len(seen) != 2 || !last.Equal(seen[1]) || !running.After(seen[0]) || !running.Before(seen[1]) {
		t.Fatalf("%d reads, changes seen at %v; running from %v", reads, seen, running)
	}
}

// A service whose account answer tells no counts (or that cannot answer
// it, three times in a row) turns the probe off: each task in its window is
// read every window gap on its own again.
func TestNoCountsNoProbe(t *testing.T) {
	for name, credits := range map[string]string{
		"no counts": `{"remaining_credits":[{"type":"general","credit_remain":500}]}`,
		"404":       "",
	} {
		svc := newService()
		svc.credits = credits
		c, store, clk := setup(t, svc)
		w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
		svc.states[ids[0]] = []string{"processing"}
		run(t, w, clk, t0.Add(10*time.Minute))
		w.mu.Lock()
		off, probing := w.probe.off, w.probingLocked()
		w.mu.Unlock()
		if !off || probing {
			t.Errorf("%s: the probe is still on after %d reads of the account", name, svc.creditReads)
		}
		// Ten minutes in, the task (75 s expected, never ending) is long
		// past its window: reads spread out, the account is asked no more.
		before := svc.creditReads
		run(t, w, clk, clk.Now().Add(10*time.Minute))
		if svc.creditReads != before {
			t.Errorf("%s: the account was read %d more times with the probe off", name, svc.creditReads-before)
		}
	}
}

// With counts, a task's end is found by the probe: the reads of the task in
// its window are rare, and the one read after the counts fell is of it.
func TestTheCountsFindAnEnd(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	// Each read of the counts is handed on as it was read (a team's poller
	// keeps them for every machine's header).
	var handed []int
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{AccountRead: func(_ context.Context, c *api.Credits, at time.Time) {
		if !at.Equal(clk.Now()) {
			t.Errorf("a read handed on at %v, read at %v", at, clk.Now())
		}
		handed = append(handed, c.Running)
	}}, 1)
	running := `{"remaining_credits":[{"type":"general","credit_remain":500,"concurrency_limit":5,"current_concurrency":1,"queue_count":0}]}`
	svc.credits = running
	svc.states[ids[0]] = []string{"processing"}
	// Into its window (75 s expected: from 25 s to 150 s).
	run(t, w, clk, t0.Add(60*time.Second))
	readsBefore := svc.reads[ids[0]]
	svc.mu.Lock()
	svc.states[ids[0]] = []string{"success"}
	svc.credits = `{"remaining_credits":[{"type":"general","credit_remain":490,"concurrency_limit":5,"current_concurrency":0,"queue_count":0}]}`
	svc.mu.Unlock()
	end := clk.Now()
	var seen time.Time
	for _, e := range run(t, w, clk, end.Add(time.Minute)) {
		if e.To == api.StateSuccess {
			seen = e.At
		}
	}
	if seen.IsZero() || seen.Sub(end) > w.sched.WindowGap || svc.reads[ids[0]] != readsBefore+1 {
		t.Errorf("the end seen %v after it happened, with %d reads of the task", seen.Sub(end), svc.reads[ids[0]]-readsBefore)
	}
	if readsBefore > 4 {
		t.Errorf("%d reads of the task in its first 60 s: the probe should stand in for them", readsBefore)
	}
	if len(handed) < 2 || handed[0] != 1 || handed[len(handed)-1] != 0 {
		t.Errorf("the counts handed on: %v, want the reads of 1 running, then of 0", handed)
	}
}

// A hunt reads first the running task furthest into its window of likely
// ends: the share of its window it has run, from the window's start (0) to
// its end (1), whatever the window's length; a task with no start seen is
// counted from when its state was first seen.
func TestEndLikelihoodIsTheShareOfTheWindowRun(t *testing.T) {
	s := &Schedule{Priors: map[api.Operation]time.Duration{api.OpText2Video: 90 * time.Second, api.OpReference2Image: 9 * time.Second}}
	now := t0
	video := func(ran time.Duration) *watched {
		return &watched{op: api.OpText2Video, model: "svcq1", running: now.Add(-ran)}
	}
	// text2video's window: 30 s to 180 s.
	for _, c := range []struct {
		ran  time.Duration
		want float64
	}{{30 * time.Second, 0}, {180 * time.Second, 1}, {105 * time.Second, 0.5}, {0, -0.2}} {
		if got := s.endLikelihood(video(c.ran), now); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("a video %v into its run: %v, want %v", c.ran, got, c.want)
		}
	}
	// An image 15 s into its 3 s to 18 s window is likelier to have ended
	// than a video that ran far longer but is halfway into its own.
	image := &watched{op: api.OpReference2Image, stateSince: now.Add(-15 * time.Second)}
	if img, vid := s.endLikelihood(image, now), s.endLikelihood(video(105*time.Second), now); math.Abs(img-0.8) > 1e-9 || img <= vid {
		t.Errorf("image %v, video %v: the image is furthest into its window", img, vid)
	}
	// A window shorter than a second counts as a second.
	tiny := &Schedule{Priors: map[api.Operation]time.Duration{api.OpReference2Image: 300 * time.Millisecond}}
	if got := tiny.endLikelihood(&watched{op: api.OpReference2Image, running: now.Add(-1100 * time.Millisecond)}, now); math.Abs(got-1) > 1e-9 {
		t.Errorf("a 0.1 s to 0.6 s window, 1.1 s run: %v, want 1 (a second's window)", got)
	}
}

// Another client's task that ends lowers the counts too: the hunt for it
// reads this watcher's running task once, finds it running, and from then
// on the counts stand in for its reads again, as they do when no other
// client's task ends. The end was the other client's, and is not looked
// for at every read of the counts after.
func TestAnotherClientsEndIsHuntedOnce(t *testing.T) {
	counts := func(running int) string {
		return fmt.Sprintf(`{"remaining_credits":[{"type":"general","credit_remain":500,"concurrency_limit":5,"current_concurrency":%d,"queue_count":0}]}`, running)
	}
	reads := func(after int) (reads, probes int) {
		svc := newService()
		c, store, clk := setup(t, svc)
		// No jitter: the two runs read on one schedule but for the end.
		w, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: noJitter(DefaultSchedule())}, 1)
		svc.credits = counts(2) // ours and another client's
		svc.states[ids[0]] = []string{"processing"}
		run(t, w, clk, t0.Add(60*time.Second)) // into its window (25 s to 150 s)
		svc.mu.Lock()
		svc.credits = counts(after)
		svc.mu.Unlock()
		before, probed := svc.reads[ids[0]], svc.creditReads
		run(t, w, clk, t0.Add(140*time.Second))
		return svc.reads[ids[0]] - before, svc.creditReads - probed
	}
	usual, _ := reads(2)
	hunted, probes := reads(1)
	if probes < 4 || hunted > usual+1 {
		t.Errorf("%d reads of the task over %d reads of the counts after another client's end, %d without it: one hunt, then the counts",
			hunted, probes, usual)
	}
}
