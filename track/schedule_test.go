package track

import (
	"testing"
	"time"

	"clapper/api"
)

// At --sandbox-speed 60 a music video is done in seconds: the schedule
// reads it in seconds too, not after a third of the real-time estimate.
func TestScheduleFollowsTheBackendSpeed(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	mv := &watched{op: api.OpMV, state: api.StateProcessing, stateSince: now}
	fixed := func() float64 { return 0.5 } // no jitter
	real := DefaultSchedule()
	real.rand = fixed
	fast := DefaultSchedule()
	fast.rand, fast.Speed = fixed, 60
	if d := real.next(mv, now, 0); d < 90*time.Second {
		t.Fatalf("at real time an mv is first read after %v; want a third of its 5 minutes", d)
	}
	if d := fast.next(mv, now, 0); d > 3*time.Second {
		t.Fatalf("at speed 60 an mv (5 s) is first read after %v", d)
	}
	queued := &watched{op: api.OpMV, state: api.StateQueueing, stateSince: now}
	if d := fast.next(queued, now, 9); d > 15*time.Second {
		t.Fatalf("at speed 60 a queued mv behind nine is read after %v", d)
	}
	if d := real.next(queued, now, 9); d < 30*time.Second {
		t.Fatalf("at real time the queue check stays at least 30 s, got %v", d)
	}
	// What is learned is at the backend's pace already: not divided again.
	fast.Observe(api.OpMV, "", 4*time.Second)
	fast.Observe(api.OpMV, "", 5*time.Second)
	fast.Observe(api.OpMV, "", 6*time.Second)
	if _, typical := fast.expected(api.OpMV, ""); typical != 5*time.Second {
		t.Fatalf("learned typical %v, want the 5 s seen", typical)
	}
}

// An off-peak task waits for quiet hours whatever slots are free: it is
// read at least QueueCheckMin apart, more rarely as it waits, never past
// QueueCheckMax; a queued task that is not off-peak, with a slot free, is
// read within seconds.
func TestOffPeakQueuedTaskIsReadRarely(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := DefaultSchedule()
	s.rand = func() float64 { return 0.5 } // no jitter
	fresh := &watched{op: api.OpText2Video, state: api.StateQueueing, stateSince: now, offPeak: true}
	if d := s.next(fresh, now, 0); d != s.QueueCheckMin {
		t.Errorf("a fresh off-peak task is read again after %v, want %v", d, s.QueueCheckMin)
	}
	if d := s.next(fresh, now.Add(8*time.Minute), 0); d != 4*time.Minute {
		t.Errorf("after 8 min queued: next read in %v, want 4m", d)
	}
	if d := s.next(fresh, now.Add(6*time.Hour), 0); d != s.QueueCheckMax {
		t.Errorf("after 6 h queued: next read in %v, want %v", d, s.QueueCheckMax)
	}
	now2 := &watched{op: api.OpText2Video, state: api.StateQueueing, stateSince: now}
	if d := s.next(now2, now.Add(time.Minute), 0); d > 10*time.Second {
		t.Errorf("a queued task with a free slot is read after %v", d)
	}
}
