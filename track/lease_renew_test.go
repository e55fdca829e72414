package track

import (
	"context"
	"testing"
	"time"
)

// The poller keeps its lease by renewing it: a rival watcher stays out
// through four lease periods while the holder reads, and once the holder
// hangs the rival takes over only after the lease of its last renewal has
// ended (at least two thirds of a lease later), and within a lease and a
// third.
func TestPollerLeaseHeldThroughRenewalsAndHandedOverAfterItsEnd(t *testing.T) {
	ctx := context.Background()
	svc := newService()
	c, store, clk := setup(t, svc)
	holder, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(5 * time.Second)}, 1)
	svc.states[ids[0]] = []string{"processing"}
	rival := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: every(5 * time.Second)})
	if err := rival.Load(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	holder.Step(ctx)
	if !holder.Leading() {
		t.Fatal("the first watcher to read did not take the free lease")
	}
	// Steps of 7 s fall off the third-of-a-lease grid of checks: the
	// holder's lease would lapse between two of its checks if a renewal
	// did not extend it, and the rival, stepping first, would take it.
	start := clk.Now()
	for clk.Now().Sub(start) < 4*pollerLease {
		clk.Advance(7 * time.Second)
		rival.Step(ctx)
		holder.Step(ctx)
		if rival.Leading() || !holder.Leading() {
			t.Fatalf("%v into a lease renewed every step, the rival took it over", clk.Now().Sub(start))
		}
	}
	hung := clk.Now()
	for !rival.Leading() {
		if clk.Now().Sub(hung) > pollerLease+pollerLease/3+5*time.Second {
			t.Fatalf("nobody took the lease over %v after its holder hung", clk.Now().Sub(hung))
		}
		clk.Advance(time.Second)
		rival.Step(ctx)
	}
	if took := clk.Now().Sub(hung); took < pollerLease-pollerLease/3 {
		t.Errorf("the rival took the lease over %v after the holder's last step, before its last renewal's lease ended", took)
	}
}

// A watcher that stops gives the lease up: the rival reads at once, at the
// same instant, not a lease later.
func TestAStoppedPollerHandsItsLeaseOverAtOnce(t *testing.T) {
	ctx := context.Background()
	svc := newService()
	c, store, clk := setup(t, svc)
	holder, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(5 * time.Second)}, 1)
	svc.states[ids[0]] = []string{"processing"}
	rival := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: every(5 * time.Second)})
	if err := rival.Load(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- holder.Run(runCtx) }()
	for deadline := time.Now().Add(10 * time.Second); !holder.Leading(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the running watcher never took the free lease")
		}
	}
	stop()
	<-done
	rival.Step(ctx)
	if !rival.Leading() {
		t.Error("the lease of a stopped watcher was not handed over at once")
	}
}

// A follower looks at the lease on a beat of its own, not when its tasks
// are next due: with the only task's next read ten minutes off, a hung
// poller is replaced within a lease and a look of its last renewal, the
// follower stepping only when Step says something is due (as Run does).
func TestFollowerLooksAtTheLeaseOnItsOwnBeat(t *testing.T) {
	ctx := context.Background()
	svc := newService()
	c, store, clk := setup(t, svc)
	holder, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(10 * time.Minute)}, 1)
	svc.states[ids[0]] = []string{"processing"}
	clk.Advance(10 * time.Minute)
	holder.Step(ctx) // claims the lease as it reads, then hangs
	hung := clk.Now()
	follower := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: every(10 * time.Minute)})
	if err := follower.Load(ctx); err != nil {
		t.Fatal(err)
	}
	for !follower.Leading() {
		next := follower.Step(ctx)
		if next.IsZero() || clk.Now().Sub(hung) > pollerLease+leaseLook {
			t.Fatalf("the follower did not take the lease over %v after the poller hung (next step %v)", clk.Now().Sub(hung), next)
		}
		clk.Set(next)
	}
}
