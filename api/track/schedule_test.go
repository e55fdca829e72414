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
