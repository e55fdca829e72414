package track

import (
	"testing"
	"time"

	"clapper/api"
)

// next is the pause before the next read of a task with no account probe.
func (s *Schedule) next(t *watched, now time.Time, ahead int) time.Duration {
	return s.plan(t, now, ahead, false).d
}

// noJitter makes a schedule's pauses exact: jitter spreads by (r*0.2-0.1).
func noJitter(s *Schedule) *Schedule {
	s.rand = func() float64 { return 0.5 }
	return s
}

// The pause before the next read, at each edge of the schedule's rules,
// under the default schedule with no account probe (first read after 4 s;
// a queued task without a free slot read every 30 s to 10 min; five
// slots; reads 4 s apart while a task is likely to end). A text-to-video
// is expected to run 75 s before any was seen: likely to end from a third
// of it (25 s) to twice it (150 s), so its window opens at 21 s.
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
		{"created: read after FirstPoll", api.OpText2Video, api.StateCreated, time.Minute, 0, 4 * time.Second},
		{"no state yet: like created", api.OpText2Video, "", time.Minute, 0, 4 * time.Second},

		{"queued, slot free, just queued", api.OpText2Video, api.StateQueueing, 0, 4, 4 * time.Second},
		{"queued, slot free: half the time queued", api.OpText2Video, api.StateQueueing, 12 * time.Second, 4, 6 * time.Second},
		{"queued, slot free: at most 10 s", api.OpText2Video, api.StateQueueing, time.Minute, 4, 10 * time.Second},
		// Five ahead fill the five slots: half of the expected wait for
		// them, (75 s x 6 / 5) / 2.
		{"queued behind a full set of slots", api.OpText2Video, api.StateQueueing, 0, 5, 45 * time.Second},
		{"queued behind a full set: at least QueueCheckMin", api.OpReference2Image, api.StateQueueing, 0, 5, 30 * time.Second},
		{"queued far back: at most QueueCheckMax", api.OpText2Video, api.StateQueueing, 0, 99, 10 * time.Minute},

		{"processing early: when its window opens", api.OpText2Video, api.StateProcessing, 10 * time.Second, 0, 11 * time.Second},
		{"processing just before its window: MinInterval", api.OpText2Video, api.StateProcessing, 20 * time.Second, 0, 2 * time.Second},
		// Inside the window a read comes at most WindowGap after the last
		// (shortened by up to a tenth, never lengthened: 4 s - 5 %).
		{"processing as its window opens: the window gap", api.OpText2Video, api.StateProcessing, 21 * time.Second, 0, 3800 * time.Millisecond},
		{"processing at the window's end: the window gap", api.OpText2Video, api.StateProcessing, 154 * time.Second, 0, 3800 * time.Millisecond},
		{"processing past its window: a quarter of how far past", api.OpText2Video, api.StateProcessing, 200 * time.Second, 0, 12500 * time.Millisecond},
		{"processing far past: at most MaxInterval", api.OpText2Video, api.StateProcessing, time.Hour, 0, 30 * time.Second},

		{"unknown state, just seen: FirstPoll", api.OpText2Video, "paused", 0, 0, 4 * time.Second},
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
	// With the account probe a windowed task is read probeSpacing window
	// gaps apart on its own, its window a quarter wider either side: runs
	// of 60, 70 and 80 s make it 55 to 85 s, read 20/6 s apart.
	s := noJitter(DefaultSchedule())
	for _, d := range []time.Duration{60, 70, 80} {
		s.Observe(api.OpText2Video, "", d*time.Second)
	}
	gap := 20 * time.Second / 6
	task := &watched{op: api.OpText2Video, state: api.StateProcessing, stateSince: now.Add(-10 * time.Second)}
	if p := s.plan(task, now, 0, true); p.windowed || !p.opens || p.d != 45*time.Second-gap {
		t.Errorf("probed, before the window: %+v", p)
	}
	task.stateSince = now.Add(-60 * time.Second)
	if p := s.plan(task, now, 0, true); !p.windowed || p.d != probeSpacing*s.WindowGap*19/20 || p.gap != gap {
		t.Errorf("probed, in the window: %+v", p)
	}
	if p := s.plan(task, now, 0, false); !p.windowed || p.opens || p.d < gap*9/10 || p.d > gap {
		t.Errorf("not probed, in the window: %+v", p)
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

// The window is learned from the runs seen: from the shortest to the
// longest (ten runs of 10 s to 100 s: 10 s to 100 s, read 4 s apart, the
// window opening a gap early).
func TestScheduleLearnsFromFinishedTasks(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	for i := 1; i <= 10; i++ {
		s.Observe(api.OpText2Video, "m", time.Duration(i)*10*time.Second)
	}
	running := &watched{op: api.OpText2Video, model: "m", state: api.StateProcessing, stateSince: now}
	if got := s.next(running, now, 0); got != 6*time.Second {
		t.Errorf("a new run of a learned operation is read after %v, want when its window opens (10 s less a 4 s gap)", got)
	}
	running.stateSince = now.Add(-104 * time.Second)
	if got := s.next(running, now, 0); got != 3800*time.Millisecond {
		t.Errorf("at the window's end: read after %v, want the gap", got)
	}
	running.stateSince = now.Add(-140 * time.Second)
	if got := s.next(running, now, 0); got != 10*time.Second {
		t.Errorf("40 s past the longest run: read after %v, want a quarter of that", got)
	}
	// Another model of the operation has learned nothing: the prior holds.
	other := &watched{op: api.OpText2Video, model: "other", state: api.StateProcessing, stateSince: now}
	if got := s.next(other, now, 0); got != 21*time.Second {
		t.Errorf("an unlearned model is read after %v, want at a third of the 75 s prior less the gap", got)
	}
}

// Two samples are not enough to replace the prior; three are.
func TestScheduleNeedsThreeSamples(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	running := &watched{op: api.OpMV, state: api.StateProcessing, stateSince: now}
	s.Observe(api.OpMV, "", 30*time.Second)
	s.Observe(api.OpMV, "", 30*time.Second)
	if got := s.next(running, now, 0); got != 96*time.Second {
		t.Errorf("after two samples: read after %v, want a third of the 5 min prior less the gap", got)
	}
	s.Observe(api.OpMV, "", 30*time.Second)
	if got := s.next(running, now, 0); got != 28*time.Second {
		t.Errorf("after three samples of 30 s: read after %v, want 30 s less the gap (2 s: the window is a point)", got)
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
	if got := s.next(running, now, 0); got != 96*time.Second {
		t.Errorf("after zero durations: read after %v, want a third of the 5 min prior less the gap", got)
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
	if got := s.next(running, now, 0); got != 28*time.Second {
		t.Errorf("read after %v, want the recent 30 s less the gap", got)
	}
}

// Runs an earlier run of clapper saw (history's) are what a new run
// expects before it sees any end; its own come after them.
func TestScheduleSeededFromHistory(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	if !s.needsSeed(api.OpMV, "") || s.needsSeed(api.OpMV, "") {
		t.Fatal("history is asked once per operation and model")
	}
	s.Observe(api.OpMV, "", 40*time.Second)
	s.Seed(api.OpMV, "", []time.Duration{30 * time.Second, 30 * time.Second})
	if lo, _, hi := s.window(api.OpMV, ""); lo != 30*time.Second || hi != 40*time.Second {
		t.Errorf("window %v to %v, want 30 s (history) to 40 s (seen)", lo, hi)
	}
	running := &watched{op: api.OpMV, state: api.StateProcessing, stateSince: now}
	if got := s.next(running, now, 0); got >= 96*time.Second {
		t.Errorf("seeded: read after %v, as if nothing was known", got)
	}
}

// Priors given to the schedule replace the built-in ones; an operation
// they leave out is expected to take a minute.
func TestSchedulePriorsReplaceTheBuiltIn(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	s.Priors = map[api.Operation]time.Duration{api.OpMV: 30 * time.Second}
	for op, want := range map[api.Operation]time.Duration{api.OpMV: 6 * time.Second, api.OpText2Video: 16 * time.Second} {
		running := &watched{op: op, state: api.StateProcessing, stateSince: now}
		if got := s.next(running, now, 0); got != want {
			t.Errorf("%s: first read after %v, want %v (a third of the prior less the gap)", op, got, want)
		}
	}
}

// At twice real time the prior running times and the queue checks halve.
func TestScheduleAtTwiceRealTime(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	s.Speed = 2
	running := &watched{op: api.OpText2Video, state: api.StateProcessing, stateSince: now}
	if got := s.next(running, now, 0); got != 8500*time.Millisecond {
		t.Errorf("processing: first read after %v, want a third of 37.5 s less the gap", got)
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
