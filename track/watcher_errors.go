package track

import (
	"container/heap"
	"context"
	"time"

	"clapper/api"
)

// What the watcher does when a read fails: a 404 run that may make a task
// lost, backing off from errors and pauses, and giving a task up.

// lost records a TaskNotFound answer in history and reports whether it made
// the task lost, in which case the task is no longer followed. Without a
// record (a task history does not hold, a failing write) this run's answers
// decide, by the same rule.
func (w *Watcher) lost(ctx context.Context, t *watched, e *api.Error, now time.Time) bool {
	w.mu.Lock()
	if t.notFound == 0 {
		t.notFoundSince = now
	}
	lost := t.notFound+1 >= lostAfter && now.Sub(t.notFoundSince) >= LostWindow
	t.notFoundRun = true
	w.mu.Unlock()
	if n, err := w.store.RecordNotFound(ctx, t.id, now, e.Reason, lostAfter, LostWindow); err == nil {
		lost = n.Lost()
	}
	if lost {
		w.lose(ctx, t, e, now)
	}
	return lost
}

// answered ends the task's run of 404s in history, if it may have one.
func (w *Watcher) answered(ctx context.Context, t *watched) {
	w.mu.Lock()
	run := t.notFoundRun
	w.mu.Unlock()
	if !run || w.store.ClearNotFound(ctx, t.id) != nil {
		return // a run left in history is ended by the next answer
	}
	w.mu.Lock()
	t.notFoundRun = false
	w.mu.Unlock()
}

// lose stops following a task the service says it does not know.
func (w *Watcher) lose(ctx context.Context, t *watched, err error, now time.Time) {
	w.mu.Lock()
	current := w.tasks[t.id] == t
	if current {
		w.dropLocked(t)
	}
	w.mu.Unlock()
	if current {
		w.emit(ctx, Event{Kind: EventLost, TaskID: t.id, Operation: t.op, From: t.state, To: t.state, Err: err, At: now})
	}
}

func (w *Watcher) failed(ctx context.Context, t *watched, err error) {
	now := w.clock.Now()
	w.emit(ctx, Event{Kind: EventPollFailed, TaskID: t.id, Operation: t.op, From: t.state, To: t.state, Err: err, At: now})
	if until := w.backOff(t, err, now); !until.IsZero() {
		w.emit(ctx, Event{Kind: EventPaused, TaskID: t.id, Operation: t.op, From: t.state, To: t.state, Err: err, At: now, Until: until})
	}
}

// backOff schedules a failed task's next read and returns when every read
// resumes if the failure paused them all (zero otherwise).
func (w *Watcher) backOff(t *watched, err error, now time.Time) (paused time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tasks[t.id] != t {
		return time.Time{} // a callback finished it meanwhile
	}
	t.failures++
	t.woken = false // the backoff holds: the service is in trouble or refusing
	wait := w.sched.backoff(t.failures)
	if e, ok := api.AsError(err); ok {
		// A Retry-After is honoured up to MaxPause: a service (or a proxy
		// in front of it) asking for a day would otherwise stop every
		// task, callbacks aside, and nothing would say why.
		if ra := min(api.ParseRetryAfter(e.RetryAfter, now), MaxPause); ra > 0 {
			wait = max(wait, ra)
			if until := now.Add(ra); until.After(w.pausedUntil) {
				w.pausedUntil, paused = until, until
			}
		}
		if e.TaskUnknown() {
			t.notFound++
		}
	}
	t.next = now.Add(wait)
	if t.index < 0 {
		heap.Push(&w.queue, t)
	} else {
		heap.Fix(&w.queue, t.index)
	}
	return paused
}
