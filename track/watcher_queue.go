// The watcher's queue: when each followed task is read next, the slots
// the service's concurrency leaves, and the order tasks were sent in. Every
// function here runs with the watcher's lock held.

package track

import (
	"container/heap"
	"time"
)

// reschedule puts a followed task back on its schedule.
func (w *Watcher) reschedule(t *watched, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tasks[t.id] == t {
		w.scheduleLocked(t, now)
	}
}

// planLocked sets when a task is read next and keeps the account probe's
// view of the tasks in their windows.
func (w *Watcher) planLocked(t *watched, now time.Time) {
	p := w.sched.plan(t, now, w.aheadLocked(t), w.probingLocked())
	t.next, t.opens = now.Add(p.d), p.opens
	w.windowLocked(t, p.windowed, p.gap, now)
}

// queueFix restores the read queue's order after t.next changed.
func (w *Watcher) queueFix(t *watched) { heap.Fix(&w.queue, t.index) }

func (w *Watcher) scheduleLocked(t *watched, now time.Time) {
	w.planLocked(t, now)
	if t.woken {
		t.next, t.woken, t.opens = now, false, false
	}
	if t.index < 0 {
		heap.Push(&w.queue, t)
	} else {
		heap.Fix(&w.queue, t.index)
	}
}

func (w *Watcher) dropLocked(t *watched) {
	delete(w.tasks, t.id)
	delete(w.probe.windowed, t)
	delete(w.probe.running, t)
	if t.op.IsMultiScene() {
		w.jobs--
	} else {
		w.counted--
	}
	w.order.remove(t)
	w.queued.remove(t)
	for _, sub := range w.subs[t.id] {
		if w.aliases[sub] == t.id {
			delete(w.aliases, sub)
		}
	}
	delete(w.subs, t.id)
	if t.index >= 0 {
		heap.Remove(&w.queue, t.index)
	}
}

// freeSlotLocked: a task finished (after since, when it was last seen
// running), so the service admits the oldest queued one. Reading it now
// sees the start; it may have started as early as since.
func (w *Watcher) freeSlotLocked(now, since time.Time) {
	oldest := w.queued.first(func(t *watched) bool { return t.next.After(now) })
	if oldest != nil && oldest.index >= 0 {
		oldest.next, oldest.slotFreed, oldest.opens = now, since, false
		heap.Fix(&w.queue, oldest.index)
	}
}

// latest is the later of two times.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// submittedBefore orders tasks as the service queues them: by creation,
// ties broken by id.
func submittedBefore(a, b *watched) bool {
	if a.created.Equal(b.created) {
		return a.id < b.id
	}
	return a.created.Before(b.created)
}

// aheadLocked counts the followed tasks created before t that have not
// finished: the queue in front of it.
func (w *Watcher) aheadLocked(t *watched) int { return w.order.before(t) }
