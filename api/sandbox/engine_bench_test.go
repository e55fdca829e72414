package sandbox

import (
	"fmt"
	"testing"
	"time"

	"clapper/api"
)

// inFlight is an in-memory sandbox holding n text2video tasks: the first
// MaxConcurrent processing, the rest queueing and ready, as under a load
// test that submits faster than the account's slots drain. Durations differ
// by a millisecond each, so tasks finish one event at a time.
func inFlight(b *testing.B, n int) (*Server, *FakeClock) {
	b.Helper()
	clock := NewFakeClock(t0)
	srv, err := New(Config{Clock: clock, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	create(b, srv)
	err = srv.withState(func(st *state, now time.Time) error {
		tmpl := *st.Units[0]
		st.Units = queued(st, &tmpl, now, n, nil)
		st.index()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.withState(nil); err != nil { // starts the first ones
		b.Fatal(err)
	}
	return srv, clock
}

// queued appends to units n copies of tmpl queueing since now.
func queued(st *state, tmpl *unit, now time.Time, n int, units []*unit) []*unit {
	for i := range n {
		u := *tmpl
		st.Seq++
		u.ID, u.Seq, u.State = fmt.Sprintf("queued-%07d", st.Seq), st.Seq, api.StateQueueing
		u.QueueAt, u.EligibleAt, u.UpdatedAt = now, now, now
		u.StartedAt, u.EndAt = time.Time{}, time.Time{}
		u.ProcDur = 2*time.Minute + time.Duration(i)*time.Millisecond
		units = append(units, &u)
	}
	return units
}

// One creation through the HTTP handler with 100 and with 100,000 tasks in
// flight. Target: 100,000 within 2x of 100. The task created is cancelled
// outside the timer, so that what is in flight stays n.
func BenchmarkCreateInFlight(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			srv, clock := inFlight(b, n)
			b.ReportAllocs()
			for b.Loop() {
				create(b, srv)
				b.StopTimer()
				clock.Advance(10 * time.Millisecond)
				err := srv.withState(func(st *state, now time.Time) error {
					st.fail(st.Units[len(st.Units)-1], now, api.ReasonUserCancelled, "benchmark")
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// One event (a task finishing and the next one in the queue starting) with
// 100 and with 100,000 tasks in flight: the clock moves to the next event
// and the sandbox acts on it. The queue is topped up outside the timer.
func BenchmarkEventInFlight(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			srv, clock := inFlight(b, n)
			refill, done := max(1, n/4), 0
			b.ReportAllocs()
			for b.Loop() {
				var next time.Time
				var ok bool
				err := srv.withState(func(st *state, _ time.Time) error {
					next, ok = st.nextEvent()
					return nil
				})
				if err != nil || !ok {
					b.Fatal("no next event", err)
				}
				clock.Set(next)
				if err := srv.withState(nil); err != nil {
					b.Fatal(err)
				}
				if done++; done%refill == 0 {
					b.StopTimer()
					topUp(b, srv, refill)
					b.StartTimer()
				}
			}
		})
	}
}

// topUp forgets the finished tasks and queues n more.
func topUp(b *testing.B, srv *Server, n int) {
	err := srv.withState(func(st *state, now time.Time) error {
		var tmpl unit
		var live []*unit
		for _, u := range st.Units {
			if !u.terminal() {
				live = append(live, u)
				tmpl = *u
			}
		}
		st.Units = queued(st, &tmpl, now, n, live)
		st.index()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
