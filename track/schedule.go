package track

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"clapper/api"
)

// priors are how long each operation usually runs once processing, before
// this client has seen any finish. Learned durations replace them.
var priors = map[api.Operation]time.Duration{
	api.OpReference2Video: 90 * time.Second, api.OpImg2Video: 75 * time.Second,
	api.OpText2Video: 75 * time.Second, api.OpStartEnd2Video: 75 * time.Second,
	api.OpReference2Image: 20 * time.Second, api.OpTiming2Audio: 15 * time.Second,
	api.OpLipSync: 60 * time.Second, api.OpTemplateStory: 90 * time.Second,
	api.OpTrendingReplicate: 120 * time.Second, api.OpMV: 5 * time.Minute,
	api.OpPremiumMV: 6 * time.Minute, api.OpGeneralOneClick: 5 * time.Minute,
	api.OpExtend: 75 * time.Second, api.OpMultiframe: 90 * time.Second,
	api.OpUpscaleNew: 60 * time.Second, api.OpText2Audio: 15 * time.Second,
	api.OpTemplate2Video: 60 * time.Second,
}

// Schedule decides when each task is read next. It learns how long each
// operation and model take from the tasks it sees finish.
type Schedule struct {
	// FirstPoll is how soon a new task is read: the service moves it to
	// queueing or processing within moments.
	FirstPoll time.Duration
	// MinInterval and MaxInterval bound the pause between two reads of one
	// running task.
	MinInterval, MaxInterval time.Duration
	// QueueCheck bounds how rarely a queued task is read when no finishing
	// task freed a slot for it.
	QueueCheckMin, QueueCheckMax time.Duration
	// Slots is how many tasks the service runs at once per account.
	Slots int
	// Priors replaces the built-in running times per operation (tests).
	Priors map[api.Operation]time.Duration
	// WindowGap is the longest pause between reads of a running task while
	// it is likely to finish (from the shortest run seen of its operation
	// and model to the longest): a plain 5-second poller sees an end 2.5 s
	// late on average and 5 s at worst, and reads this far apart see it
	// sooner, while no read is spent before the window.
	WindowGap time.Duration
	// Speed is how many times faster than real time the backend runs: the
	// embedded sandbox's --sandbox-speed, 1 (or 0) for a real service. The
	// running times the schedule expects before it has learned any, and
	// its waits for queued tasks, are divided by it; what it learns from
	// tasks seen finishing is already at the backend's pace.
	Speed float64

	mu      sync.Mutex
	learned map[string][]time.Duration // op/model -> recent processing times
	// seeded are the op/models whose running times history was asked for.
	seeded map[string]bool
	rand   func() float64
}

// DefaultSchedule returns the schedule the watcher uses unless told otherwise.
func DefaultSchedule() *Schedule {
	return &Schedule{
		FirstPoll: 4 * time.Second, MinInterval: 2 * time.Second, MaxInterval: 30 * time.Second,
		QueueCheckMin: 30 * time.Second, QueueCheckMax: 10 * time.Minute, Slots: 5, WindowGap: 4 * time.Second,
	}
}

const learnWindow = 32 // recent samples kept per operation and model

func key(op api.Operation, model string) string { return string(op) + "/" + model }

// Observe records how long a task ran, from its start to its end as
// this client saw them.
func (s *Schedule) Observe(op api.Operation, model string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observeLocked(key(op, model), d)
}

func (s *Schedule) observeLocked(k string, d time.Duration) {
	if d <= 0 {
		return
	}
	if s.learned == nil {
		s.learned = map[string][]time.Duration{}
	}
	l := append(s.learned[k], d)
	if len(l) > learnWindow {
		l = l[len(l)-learnWindow:]
	}
	s.learned[k] = l
}

// needsSeed reports, once per operation and model, that history's running
// times should be asked for: a new run of clapper starts from what earlier
// runs saw, not from the built-in guess.
func (s *Schedule) needsSeed(op api.Operation, model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(op, model)
	if s.seeded[k] {
		return false
	}
	if s.seeded == nil {
		s.seeded = map[string]bool{}
	}
	s.seeded[k] = true
	return true
}

// Seed adds running times seen by earlier runs (newest first) before any
// this run observed.
func (s *Schedule) Seed(op api.Operation, model string, newestFirst []time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(op, model)
	mine := s.learned[k]
	delete(s.learned, k)
	for _, d := range slices.Backward(newestFirst) {
		s.observeLocked(k, d)
	}
	for _, d := range mine {
		s.observeLocked(k, d)
	}
}

// Prior is an operation's running time before any task of it was seen,
// in real time.
func Prior(op api.Operation) time.Duration {
	if p := priors[op]; p > 0 {
		return p
	}
	return time.Minute
}

// window is when a running task of an operation and model is likely to
// end, counted from its start: from the shortest run seen to the longest,
// the median between; before three were seen, a third of the prior to
// twice it.
func (s *Schedule) window(op api.Operation, model string) (lo, typical, hi time.Duration) {
	s.mu.Lock()
	l := slices.Clone(s.learned[key(op, model)])
	s.mu.Unlock()
	if len(l) >= 3 {
		slices.Sort(l)
		return l[0], l[len(l)/2], l[len(l)-1]
	}
	_, p := s.expected(op, model)
	return p / 3, p, 2 * p
}

// expected returns the low and typical running time of an operation and
// model: the 10th percentile and the median of what was seen, or halves of
// the prior.
func (s *Schedule) expected(op api.Operation, model string) (low, typical time.Duration) {
	s.mu.Lock()
	l := slices.Clone(s.learned[key(op, model)])
	s.mu.Unlock()
	if len(l) >= 3 {
		slices.Sort(l)
		return l[len(l)/10], l[len(l)/2]
	}
	p := Prior(op)
	if s.Priors != nil {
		if p = s.Priors[op]; p == 0 {
			p = time.Minute
		}
	}
	p = s.scaled(p)
	return p / 3, p
}

// scaled is a real-time wait at the backend's pace.
func (s *Schedule) scaled(d time.Duration) time.Duration {
	if s.Speed <= 1 {
		return d
	}
	return time.Duration(float64(d) / s.Speed)
}

// jitter spreads a pause by ±10% so tasks created together drift apart.
func (s *Schedule) jitter(d time.Duration) time.Duration {
	r := s.rand
	if r == nil {
		r = rand.Float64
	}
	return d + time.Duration((r()*0.2-0.1)*float64(d))
}

// A plan is when a task is read next: after d; windowed says it is in
// its window, where reads are gap apart (or the account probe's, every
// gap, stands in for them).
type plan struct {
	d        time.Duration
	windowed bool
	gap      time.Duration
	// opens: at d the task's window opens, and with the probe nothing need
	// be read then: the task joins the probe's watch.
	opens bool
}

// windowGap is the pause between reads in a window from lo to hi: never
// more than WindowGap, a sixth of the window when that is shorter, never
// under MinInterval.
func (s *Schedule) windowGap(lo, hi time.Duration) time.Duration {
	return max(min(s.WindowGap, (hi-lo)/6), s.MinInterval)
}

// plan is when a task is read next, from its state, how long it has been
// in that state (or, running, since it started), for a queued task how
// many of the account's tasks are ahead of it, and whether the account's
// counts are probed (then a task in its window is read probeSpacing gaps
// apart; the probe finds its end sooner).
func (s *Schedule) plan(t *watched, now time.Time, ahead int, probed bool) plan {
	if t.state == api.StateProcessing {
		return s.running(t, now, probed)
	}
	return plan{d: s.waiting(t, now, ahead)}
}

func (s *Schedule) running(t *watched, now time.Time, probed bool) plan {
	ran := now.Sub(t.stateSince)
	if !t.running.IsZero() {
		ran = now.Sub(t.running)
	}
	lo, _, hi := s.window(t.op, t.model)
	// The window opens a gap early: the runs seen are known to a read's
	// precision.
	gap := s.windowGap(lo, hi)
	if probed {
		// The probe's reads serve every task at once: the window can be
		// wider (a quarter of its width again either side), as the next
		// run may well be shorter or longer than any seen.
		lo, hi = lo-(hi-lo)/4, hi+(hi-lo)/4
	}
	switch {
	case ran < lo-gap:
		// Nothing seen ended this early: no read until it might.
		return plan{d: max(lo-gap-ran, s.MinInterval), opens: probed}
	case ran <= hi+gap && probed:
		return plan{d: s.shorten(probeSpacing * s.WindowGap), windowed: true, gap: gap}
	case ran <= hi+gap:
		return plan{d: s.shorten(gap), windowed: true, gap: gap}
	}
	// Longer than any run seen: an outlier, whose reads spread out with how
	// far past the window it is.
	return plan{d: s.jitter(min(max((ran-hi)/4, gap), s.MaxInterval))}
}

// waiting is the pause before the next read of a task not running.
func (s *Schedule) waiting(t *watched, now time.Time, ahead int) time.Duration {
	inState := now.Sub(t.stateSince)
	switch t.state {
	case api.StateCreated, "":
		return s.jitter(s.FirstPoll)
	case api.StateQueueing:
		if t.offPeak {
			// An off-peak task waits for the service's quiet hours (up to
			// 48 h), free slots or not: the reads thin out as it waits,
			// from QueueCheckMin to QueueCheckMax, and follow it closely
			// once it runs.
			return s.jitter(min(max(inState/2, s.scaled(s.QueueCheckMin), s.MinInterval), s.scaled(s.QueueCheckMax)))
		}
		if ahead < s.Slots {
			// A slot is free for it: the service starts it within moments.
			return s.jitter(min(max(s.FirstPoll, inState/2), 10*time.Second))
		}
		// A queued task starts when a slot frees; the watcher reads it as
		// soon as it sees one free. This read only guards against starts it
		// cannot see (other clients of the account): about half the
		// expected wait for the tasks ahead to finish.
		_, typical := s.expected(t.op, t.model)
		wait := time.Duration(float64(typical) * float64(ahead+1) / float64(max(s.Slots, 1)) / 2)
		return s.jitter(min(max(wait, max(s.scaled(s.QueueCheckMin), s.MinInterval)), s.scaled(s.QueueCheckMax)))
	default:
		// A state the spec does not name: nothing tells when it changes, so
		// each pause is half the time spent in it, from FirstPoll up to
		// QueueCheckMax: the reads thin out geometrically (x1.5).
		return s.jitter(min(max(inState/2, s.FirstPoll), s.QueueCheckMax))
	}
}

// shorten spreads a pause by up to 10 % downward only: a read inside the
// window is never later than its gap.
func (s *Schedule) shorten(d time.Duration) time.Duration {
	r := s.rand
	if r == nil {
		r = rand.Float64
	}
	return d - time.Duration(r()*0.1*float64(d))
}

// backoff is the pause after consecutive failed reads: 2 s doubling to 5 min.
func (s *Schedule) backoff(failures int) time.Duration {
	d := 2 * time.Second << min(failures-1, 8)
	return s.jitter(min(d, 5*time.Minute))
}
