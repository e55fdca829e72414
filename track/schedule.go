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
	// Speed is how many times faster than real time the backend runs: the
	// embedded sandbox's --sandbox-speed, 1 (or 0) for a real service. The
	// running times the schedule expects before it has learned any, and
	// its waits for queued tasks, are divided by it; what it learns from
	// tasks seen finishing is already at the backend's pace.
	Speed float64

	mu      sync.Mutex
	learned map[string][]time.Duration // op/model -> recent processing times
	rand    func() float64
}

// DefaultSchedule returns the schedule the watcher uses unless told otherwise.
func DefaultSchedule() *Schedule {
	return &Schedule{
		FirstPoll: 2 * time.Second, MinInterval: 2 * time.Second, MaxInterval: 30 * time.Second,
		QueueCheckMin: 30 * time.Second, QueueCheckMax: 10 * time.Minute, Slots: 5,
	}
}

const learnWindow = 32 // recent samples kept per operation and model

func key(op api.Operation, model string) string { return string(op) + "/" + model }

// Observe records how long a task ran, from first seen processing to done.
func (s *Schedule) Observe(op api.Operation, model string, d time.Duration) {
	if d <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.learned == nil {
		s.learned = map[string][]time.Duration{}
	}
	k := key(op, model)
	l := append(s.learned[k], d)
	if len(l) > learnWindow {
		l = l[len(l)-learnWindow:]
	}
	s.learned[k] = l
}

// Prior is an operation's running time before any task of it was seen,
// in real time.
func Prior(op api.Operation) time.Duration {
	if p := priors[op]; p > 0 {
		return p
	}
	return time.Minute
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

// next is the pause before the next read of a task, from its state, how
// long it has been in that state, and (for a queued task) how many of the
// account's tasks are ahead of it.
func (s *Schedule) next(t *watched, now time.Time, ahead int) time.Duration {
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
	case api.StateProcessing:
		low, typical := s.expected(t.op, t.model)
		if inState < low {
			// Nothing usually finishes this early: look again when it might.
			return s.jitter(max(low-inState, s.MinInterval))
		}
		// Near and past the typical time, read often; far past it, the
		// task is an outlier and the reads spread out with its age.
		step := typical / 16
		if inState > 2*typical {
			step = inState / 16
		}
		return s.jitter(min(max(step, s.MinInterval), s.MaxInterval))
	default:
		// A state the spec does not name: nothing tells when it changes, so
		// each pause is half the time spent in it, from FirstPoll up to
		// QueueCheckMax: the reads thin out geometrically (x1.5).
		return s.jitter(min(max(inState/2, s.FirstPoll), s.QueueCheckMax))
	}
}

// backoff is the pause after consecutive failed reads: 2 s doubling to 5 min.
func (s *Schedule) backoff(failures int) time.Duration {
	d := 2 * time.Second << min(failures-1, 8)
	return s.jitter(min(d, 5*time.Minute))
}
