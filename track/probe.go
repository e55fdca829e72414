package track

import (
	"context"
	"math"
	"time"

	"clapper/api"
)

// The account probe: one read of the account's counts (GET credits: its
// tasks running and queued) tells whether any of its tasks ended since the
// last, for every task at once. While tasks are in their windows (likely
// to end), the watcher reads the counts every window gap instead of every
// such task; when the service counts fewer tasks not ended than this
// watcher follows (less the other clients' tasks it counted before), it
// reads the running tasks most likely to have ended, one at a time, until
// the ends are found. Each windowed task is still read every probeSpacing
// gaps on its own: counts that another client's work masks (a task of
// theirs created as one of ours ends) delay an end that long, never lose
// it. A service that tells no counts, or a multi-scene job in flight (its
// scenes are counted as tasks the watcher does not follow), turns the
// probe off and every windowed task is read every gap.
type accountProbe struct {
	// off: the service tells no counts (or failed to, probeFailures times
	// in a row); reads go back to every gap.
	off      bool
	failures int
	// at is the next probe; zero while no task is in its window.
	at time.Time
	// foreign is how many of the account's tasks not ended the last probe
	// counted beyond this watcher's: other clients' work. known says a
	// probe answered.
	foreign int
	known   bool
	// hunt is how many ends the counts told of that no read has found;
	// tried are the tasks read for them since the probe.
	hunt  int
	tried map[*watched]bool
	// windowed are the tasks in their windows, running all those running:
	// a hunt reads those most likely to have ended first, and then the
	// others (one may end before any run seen did).
	windowed, running map[*watched]bool
}

// probeSpacing is how many WindowGaps apart a windowed task is read on
// its own while the probe watches the counts: only an end the counts miss
// waits for it.
const probeSpacing = 15

// probeFailures is how many failed reads of the counts in a row turn the
// probe off: a service without the account endpoint is not asked forever.
const probeFailures = 3

// slowProbe is how many WindowGaps apart the counts are read while tasks
// run but none is in its window.
const slowProbe = 3

// probing reports whether the counts stand in for windowed tasks' reads
// (a schedule without a WindowGap reads no windows, and probes nothing).
func (w *Watcher) probingLocked() bool {
	return !w.probe.off && w.jobs == 0 && w.sched.WindowGap > 0
}

// windowLocked keeps the windowed set and the probe's schedule as a task
// is rescheduled: in its window the probe reads within gap.
func (w *Watcher) windowLocked(t *watched, in bool, gap time.Duration, now time.Time) {
	if w.probe.running == nil {
		w.probe.windowed, w.probe.running = map[*watched]bool{}, map[*watched]bool{}
	}
	if t.state == api.StateProcessing {
		w.probe.running[t] = true
		// A task may fail long before its window: the counts are read now
		// and then while any runs, at a fraction of the reads.
		if w.probe.at.IsZero() {
			w.probe.at = now.Add(slowProbe * w.sched.WindowGap)
		}
	} else {
		delete(w.probe.running, t)
	}
	if !in {
		delete(w.probe.windowed, t)
		return
	}
	w.probe.windowed[t] = true
	if at := now.Add(gap); w.probe.at.IsZero() || at.Before(w.probe.at) {
		w.probe.at = at
	}
}

// readCounts is one probe: it reads the account's counts and starts a hunt
// when they tell of ends no read has seen.
func (w *Watcher) readCounts(ctx context.Context, now time.Time) {
	c, err := w.client.Credits(ctx)
	if err == nil && w.accountRead != nil {
		w.accountRead(ctx, c, now)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	p := &w.probe
	p.at = time.Time{}
	if err != nil {
		p.failures++
	} else {
		p.failures = 0
	}
	if (err == nil && !c.HasConcurrency) || p.failures >= probeFailures {
		// The service tells no counts: every windowed task is read every
		// gap from its next read on.
		p.off = true
		for t := range p.windowed {
			w.wakeLocked(t, now)
		}
		return
	}
	if err != nil {
		// A failed read of the counts: the windowed tasks' own reads go
		// on; the counts are asked again after a gap.
		if len(p.running) > 0 {
			p.at = now.Add(w.sched.WindowGap)
		}
		return
	}
	total, ours := c.Running+c.Queued, w.counted
	if unseen := ours + p.foreign - total; p.known && unseen > 0 {
		p.hunt, p.tried = unseen, map[*watched]bool{}
		w.huntLocked(now)
	} else {
		p.foreign = max(total-ours, 0)
	}
	p.known = true
	switch {
	case len(p.windowed) > 0:
		p.at = now.Add(w.sched.gap(p.windowed))
	case len(p.running) > 0:
		p.at = now.Add(slowProbe * w.sched.WindowGap)
	}
}

// huntLocked reads, now, the running task most likely to have ended that
// was not read for this hunt yet; none left ends the hunt (the end was
// another client's task).
func (w *Watcher) huntLocked(now time.Time) {
	p := &w.probe
	var best *watched
	bestScore := math.Inf(-1)
	for t := range p.running {
		if p.tried[t] {
			continue
		}
		if s := w.sched.endLikelihood(t, now); s > bestScore {
			best, bestScore = t, s
		}
	}
	if best == nil {
		// Every running task was read: the ends not found were other
		// clients' tasks, which the counts no longer hold.
		p.foreign = max(p.foreign-p.hunt, 0)
		p.hunt = 0
		return
	}
	p.tried[best] = true
	w.wakeLocked(best, now)
}

// huntReadLocked: a task read for a hunt answered; ended says whether it
// had ended.
func (w *Watcher) huntReadLocked(t *watched, ended bool, now time.Time) {
	p := &w.probe
	if p.hunt == 0 || !p.tried[t] {
		return
	}
	if ended {
		p.hunt--
	}
	if p.hunt > 0 {
		w.huntLocked(now)
	}
}

// wakeLocked makes a followed task due now, for a read.
func (w *Watcher) wakeLocked(t *watched, now time.Time) {
	t.opens = false
	if t.index >= 0 && t.next.After(now) {
		t.next = now
		w.queueFix(t)
	}
}

// endLikelihood ranks a windowed task by how far into its window it is.
func (s *Schedule) endLikelihood(t *watched, now time.Time) float64 {
	lo, _, hi := s.window(t.op, t.model)
	ran := now.Sub(t.running)
	if t.running.IsZero() {
		ran = now.Sub(t.stateSince)
	}
	return float64(ran-lo) / float64(max(hi-lo, time.Second))
}

// gap is the probe's pause: the shortest window gap of the windowed tasks.
func (s *Schedule) gap(windowed map[*watched]bool) time.Duration {
	g := s.WindowGap
	for t := range windowed {
		lo, _, hi := s.window(t.op, t.model)
		g = min(g, s.windowGap(lo, hi))
	}
	return g
}
