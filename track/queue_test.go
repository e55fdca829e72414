package track

import (
	"container/heap"
	"context"
	"strings"
	"testing"
	"time"
)

func TestFinishedTaskFreesSlotForOldestQueued(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	oneSlot := DefaultSchedule()
	oneSlot.Slots = 1 // the account runs one task at a time
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: oneSlot}, 3)
	svc.states[ids[0]] = []string{"processing", "success"}
	svc.states[ids[1]] = []string{"queueing", "processing"}
	svc.states[ids[2]] = []string{"queueing"}
	clk.Set(t0.Add(5 * time.Second))
	w.Step(context.Background()) // first reads: processing, queueing, queueing
	drain(w)
	w.mu.Lock()
	before := w.tasks[ids[1]].next
	w.mu.Unlock()
	if before.Sub(clk.Now()) < 20*time.Second {
		t.Fatalf("a queued task is read again within %v", before.Sub(clk.Now()))
	}
	// The running task finishes; the next read of the oldest queued task
	// comes at once.
	w.mu.Lock()
	w.tasks[ids[0]].next = clk.Now()
	heap.Fix(&w.queue, w.tasks[ids[0]].index)
	w.mu.Unlock()
	w.Step(context.Background())
	ev := drain(w)
	var seen []string
	for _, e := range ev {
		seen = append(seen, e.TaskID+":"+e.To)
	}
	if strings.Join(seen, " ") != ids[0]+":success "+ids[1]+":processing" {
		t.Errorf("events %v", seen)
	}
}

// With a slot free, a queued task starts within moments: it is read again
// soon, not on the rare schedule of a long queue.
func TestQueuedTaskWithFreeSlotIsReadSoon(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	svc.states[ids[0]] = []string{"queueing", "processing"}
	clk.Set(t0.Add(5 * time.Second))
	next := w.Step(context.Background())
	if d := next.Sub(clk.Now()); d > 10*time.Second {
		t.Errorf("a queued task with a free slot is read again in %v", d)
	}
}

// An off-peak task waits for the service's quiet hours, free slots or not:
// once a read says so, the next comes no sooner than the queue check.
func TestOffPeakQueuedTaskWaitsForTheQueueCheck(t *testing.T) {
	svc := newService()
	svc.offPeak = true
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	svc.states[ids[0]] = []string{"queueing"}
	clk.Set(t0.Add(5 * time.Second))
	next := w.Step(context.Background())
	if svc.reads[ids[0]] != 1 {
		t.Fatalf("%d reads, want the first", svc.reads[ids[0]])
	}
	if d := next.Sub(clk.Now()); d < 25*time.Second {
		t.Errorf("an off-peak queued task is read again in %v", d)
	}
}

// A 429 with Retry-After holds every read, not only the one that got it.
func TestRetryAfterPausesAllReads(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 2)
	svc.status[ids[0]] = 429
	svc.header["Retry-After"] = "60"
	svc.states[ids[1]] = []string{"processing"}
	w.mu.Lock()
	second := w.tasks[ids[1]]
	second.next = t0.Add(20 * time.Second) // due after the 429
	heap.Fix(&w.queue, second.index)
	w.mu.Unlock()
	clk.Set(t0.Add(10 * time.Second))
	w.Step(context.Background())
	clk.Set(t0.Add(30 * time.Second))
	next := w.Step(context.Background())
	if svc.reads[ids[1]] != 0 {
		t.Errorf("the other task was read %d time(s) during the pause", svc.reads[ids[1]])
	}
	if next.Before(t0.Add(69 * time.Second)) {
		t.Errorf("reads resume at %v, before the 60 s asked", next.Sub(t0))
	}
}

// An answer behind one already recorded (a lagging service replica) neither
// reports a change nor stops the following.
func TestStaleReadKeepsFollowing(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	id := ids[0]
	svc.states[id] = []string{"processing", "queueing", "queueing", "success"}
	events := run(t, w, clk, t0.Add(time.Hour))
	var got []string
	for _, e := range events {
		got = append(got, e.To)
	}
	if strings.Join(got, " ") != "processing success" || w.Watching() != 0 {
		t.Errorf("events %v, watching %d", got, w.Watching())
	}
}
