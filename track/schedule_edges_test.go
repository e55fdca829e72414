package track

import (
	"testing"
	"time"

	"clapper/api"
)

// noJitter makes a schedule's pauses exact: jitter spreads by (r*0.2-0.1).
func noJitter(s *Schedule) *Schedule {
	s.rand = func() float64 { return 0.5 }
	return s
}

// The pause before the next read, at each edge of the schedule's rules,
// under the default schedule (first read after 2 s; running reads every
// 2 to 30 s; a queued task without a free slot read every 30 s to 10 min;
// five slots). A text-to-video usually runs 75 s before this client has
// seen any finish, so nothing is expected before a third of it (25 s).
func TestSchedulePausesAtEachEdge(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	cases := []struct {
		name    string
		op      api.Operation
		state   string
		inState time.Duration
		ahead   int
		want    time.Duration
	}{
		{"created: read after FirstPoll", api.OpText2Video, api.StateCreated, time.Minute, 0, 2 * time.Second},
		{"no state yet: like created", api.OpText2Video, "", time.Minute, 0, 2 * time.Second},

		{"queued, slot free, just queued", api.OpText2Video, api.StateQueueing, 0, 4, 2 * time.Second},
		{"queued, slot free: half the time queued", api.OpText2Video, api.StateQueueing, 12 * time.Second, 4, 6 * time.Second},
		{"queued, slot free: at most 10 s", api.OpText2Video, api.StateQueueing, time.Minute, 4, 10 * time.Second},
		// Five ahead fill the five slots: half of the expected wait for
		// them, (75 s x 6 / 5) / 2.
		{"queued behind a full set of slots", api.OpText2Video, api.StateQueueing, 0, 5, 45 * time.Second},
		{"queued behind a full set: at least QueueCheckMin", api.OpReference2Image, api.StateQueueing, 0, 5, 30 * time.Second},
		{"queued far back: at most QueueCheckMax", api.OpText2Video, api.StateQueueing, 0, 99, 10 * time.Minute},

		{"processing early: when it might first finish", api.OpText2Video, api.StateProcessing, 10 * time.Second, 0, 15 * time.Second},
		{"processing just before the low time: MinInterval", api.OpText2Video, api.StateProcessing, 24 * time.Second, 0, 2 * time.Second},
		{"processing at the low time: a sixteenth of the typical", api.OpText2Video, api.StateProcessing, 25 * time.Second, 0, 75 * time.Second / 16},
		{"processing at twice the typical: still a sixteenth of it", api.OpText2Video, api.StateProcessing, 150 * time.Second, 0, 75 * time.Second / 16},
		{"processing past twice the typical: a sixteenth of its age", api.OpText2Video, api.StateProcessing, 320 * time.Second, 0, 20 * time.Second},
		{"processing far past: at most MaxInterval", api.OpText2Video, api.StateProcessing, time.Hour, 0, 30 * time.Second},

		{"unknown state, just seen: FirstPoll", api.OpText2Video, "paused", 0, 0, 2 * time.Second},
		{"unknown state: half the time in it", api.OpText2Video, "paused", time.Minute, 0, 30 * time.Second},
		{"unknown state: at most QueueCheckMax", api.OpText2Video, "paused", time.Hour, 0, 10 * time.Minute},
	}
	for _, c := range cases {
		s := noJitter(DefaultSchedule())
		task := &watched{op: c.op, state: c.state, stateSince: now.Add(-c.inState)}
		if got := s.next(task, now, c.ahead); got != c.want {
			t.Errorf("%s: next read in %v, want %v", c.name, got, c.want)
		}
	}
}

// Failed reads back off from 2 s, doubling, up to 5 minutes.
func TestBackoffDoublesUpToFiveMinutes(t *testing.T) {
	s := noJitter(DefaultSchedule())
	for failures, want := range map[int]time.Duration{
		1: 2 * time.Second, 2: 4 * time.Second, 4: 16 * time.Second, 8: 256 * time.Second, 9: 5 * time.Minute, 40: 5 * time.Minute,
	} {
		if got := s.backoff(failures); got != want {
			t.Errorf("after %d failures: wait %v, want %v", failures, got, want)
		}
	}
}

// Jitter spreads a pause by at most 10% either way.
func TestJitterIsTenPercentEitherWay(t *testing.T) {
	s := DefaultSchedule()
	for r, want := range map[float64]time.Duration{0: 9 * time.Second, 0.5: 10 * time.Second, 1: 11 * time.Second} {
		s.rand = func() float64 { return r }
		if got := s.jitter(10 * time.Second); (got - want).Abs() > time.Millisecond {
			t.Errorf("jitter(10 s) with r=%v: %v, want %v", r, got, want)
		}
	}
}

// Once three tasks of an operation and model were seen finishing, their
// times replace the prior: nothing is expected before the 10th percentile,
// and the reads thicken around the median.
func TestScheduleLearnsFromFinishedTasks(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	for i := 1; i <= 10; i++ {
		s.Observe(api.OpText2Video, "m", time.Duration(i)*10*time.Second)
	}
	running := &watched{op: api.OpText2Video, model: "m", state: api.StateProcessing, stateSince: now}
	// Ten samples 10 s … 100 s: 10th percentile 20 s, median 60 s.
	if got := s.next(running, now, 0); got != 20*time.Second {
		t.Errorf("a new run of a learned operation is read after %v, want its 10th percentile 20 s", got)
	}
	running.stateSince = now.Add(-20 * time.Second)
	if got := s.next(running, now, 0); got != 60*time.Second/16 {
		t.Errorf("at the 10th percentile: read after %v, want a sixteenth of the median 60 s", got)
	}
	// Another model of the operation has learned nothing: the prior holds.
	other := &watched{op: api.OpText2Video, model: "other", state: api.StateProcessing, stateSince: now}
	if got := s.next(other, now, 0); got != 25*time.Second {
		t.Errorf("an unlearned model is read after %v, want a third of the 75 s prior", got)
	}
}

// Two samples are not enough to replace the prior; three are.
func TestScheduleNeedsThreeSamples(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	running := &watched{op: api.OpMV, state: api.StateProcessing, stateSince: now}
	s.Observe(api.OpMV, "", 30*time.Second)
	s.Observe(api.OpMV, "", 30*time.Second)
	if got := s.next(running, now, 0); got != 100*time.Second {
		t.Errorf("after two samples: read after %v, want a third of the 5 min prior", got)
	}
	s.Observe(api.OpMV, "", 30*time.Second)
	if got := s.next(running, now, 0); got != 30*time.Second {
		t.Errorf("after three samples of 30 s: read after %v, want 30 s", got)
	}
}

// A duration of zero (a task seen processing and done in one read) says
// nothing about how long the operation takes: it is not learned.
func TestScheduleIgnoresZeroDurations(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	for range 5 {
		s.Observe(api.OpMV, "", 0)
	}
	running := &watched{op: api.OpMV, state: api.StateProcessing, stateSince: now}
	if got := s.next(running, now, 0); got != 100*time.Second {
		t.Errorf("after zero durations: read after %v, want a third of the 5 min prior", got)
	}
}

// Only the 32 most recent samples count: an operation that got faster is
// read at its new pace.
func TestScheduleForgetsOldSamples(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	for range 40 {
		s.Observe(api.OpMV, "", 10*time.Minute)
	}
	for range 32 {
		s.Observe(api.OpMV, "", 30*time.Second)
	}
	running := &watched{op: api.OpMV, state: api.StateProcessing, stateSince: now}
	if got := s.next(running, now, 0); got != 30*time.Second {
		t.Errorf("read after %v, want the recent 30 s", got)
	}
}

// Priors given to the schedule replace the built-in ones; an operation
// they leave out is expected to take a minute.
func TestSchedulePriorsReplaceTheBuiltIn(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	s.Priors = map[api.Operation]time.Duration{api.OpMV: 30 * time.Second}
	for op, want := range map[api.Operation]time.Duration{api.OpMV: 10 * time.Second, api.OpText2Video: 20 * time.Second} {
		running := &watched{op: op, state: api.StateProcessing, stateSince: now}
		if got := s.next(running, now, 0); got != want {
			t.Errorf("%s: first read after %v, want %v", op, got, want)
		}
	}
}

// At twice real time the prior running times and the queue checks halve.
func TestScheduleAtTwiceRealTime(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	s.Speed = 2
	running := &watched{op: api.OpText2Video, state: api.StateProcessing, stateSince: now}
	if got := s.next(running, now, 0); got != 12500*time.Millisecond {
		t.Errorf("processing: first read after %v, want a third of 37.5 s", got)
	}
	queued := &watched{op: api.OpReference2Image, state: api.StateQueueing, stateSince: now}
	if got := s.next(queued, now, 5); got != 15*time.Second {
		t.Errorf("queued behind full slots: read after %v, want half of QueueCheckMin", got)
	}
	queued.op = api.OpText2Video
	if got := s.next(queued, now, 99); got != 5*time.Minute {
		t.Errorf("queued far back: read after %v, want half of QueueCheckMax", got)
	}
}
