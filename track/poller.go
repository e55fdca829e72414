package track

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"clapper/api"
)

// One poller per history. Every watcher that follows all the tasks in
// flight (it called Load: the TUI, clapper watch) competes for a lease in
// the history; the holder reads from the service and records what it
// learns, and the others follow through the history: a due task is read
// from the history instead of the service, and a change found there is
// reported as if read, so every front end still sees every change. Three
// watch processes on one data dir thus cost the service one set of reads.
// The holder renews its lease every pollerLease/3 and loads what others
// sent meanwhile; when it stops (its process ends, is killed or hangs),
// another takes over once the lease lapses, or at once if the holder was
// a process of this machine that no longer runs. A watcher that follows
// only the tasks it was given (create --wait, follow) always reads them
// itself: nothing else may be following them.
const pollerLease = 30 * time.Second

// leaseLook is how often a watcher that follows through the history looks
// at the lease, on a beat of its own rather than when a task is next due
// (a long video's next read may be a minute off): a poller killed on
// another host is replaced at most this long after its lease ends, one
// killed on this host this long after it died.
const leaseLook = 3 * time.Second

// pollerLeaseState is a watcher's view of the lease.
type pollerLeaseState struct {
	mu      sync.Mutex
	shared  bool      // the watcher follows all in flight: it competes
	owner   string    // its name in the lease
	leading bool      // it holds the lease
	checkAt time.Time // when to claim or renew next
}

// share makes the watcher compete for the lease (Load calls it).
func (w *Watcher) share() {
	w.lease.mu.Lock()
	defer w.lease.mu.Unlock()
	if !w.lease.shared {
		w.lease.shared, w.lease.owner = true, newToken()
	}
}

// polling reports whether this watcher reads from the service now: it
// follows only what it was given, or it holds the lease. A store that
// fails to say leaves every watcher polling: a task read twice is better
// than one read by nobody.
func (w *Watcher) polling(ctx context.Context, now time.Time) bool {
	w.lease.mu.Lock()
	if !w.lease.shared {
		w.lease.mu.Unlock()
		return true
	}
	if now.Before(w.lease.checkAt) {
		leading := w.lease.leading
		w.lease.mu.Unlock()
		return leading
	}
	holder, err := w.store.ClaimPoller(ctx, w.lease.owner, now, pollerLease, ownerGone)
	leading := err != nil || holder == w.lease.owner
	w.lease.leading, w.lease.checkAt = leading, now.Add(pollerLease/3)
	if !leading {
		w.lease.checkAt = now.Add(leaseLook)
	}
	w.lease.mu.Unlock()
	if leading && err == nil {
		// Tasks another process sent since are this poller's to read.
		w.Load(ctx)
	}
	return leading
}

// lookDue is when a follower looks at the lease next, by itself (a zero
// time: now); ok is false when it does not look (it holds the lease and
// renews it as it reads, follows nothing, or polls on its own). Called
// with w.mu held.
func (w *Watcher) lookDue() (at time.Time, ok bool) {
	w.lease.mu.Lock()
	defer w.lease.mu.Unlock()
	if !w.lease.shared || w.lease.leading || len(w.queue) == 0 {
		return time.Time{}, false
	}
	return w.lease.checkAt, true
}

// Leading reports whether this watcher holds the account's poller lease
// (reads the service for every process on the history).
func (w *Watcher) Leading() bool {
	w.lease.mu.Lock()
	defer w.lease.mu.Unlock()
	return w.lease.shared && w.lease.leading
}

// ClaimSoon makes a watcher that follows through the history try for the
// lease at its next step: the poller said it resigned.
func (w *Watcher) ClaimSoon() {
	w.lease.mu.Lock()
	defer w.lease.mu.Unlock()
	if w.lease.shared && !w.lease.leading {
		w.lease.checkAt = time.Time{}
	}
	select {
	case w.wake <- struct{}{}:
	default: // a wake-up is pending
	}
}

// releasePoller gives the lease up as the watcher stops.
func (w *Watcher) releasePoller() {
	w.lease.mu.Lock()
	defer w.lease.mu.Unlock()
	if w.lease.leading {
		w.store.ReleasePoller(context.Background(), w.lease.owner)
		w.lease.leading, w.lease.checkAt = false, time.Time{}
	}
}

// followHistory reads a due task from the history the poller writes and
// reports what changed there as a read would.
func (w *Watcher) followHistory(ctx context.Context, t *watched, now time.Time) {
	task, err := w.store.TaskByID(ctx, t.id)
	if err != nil {
		w.reschedule(t, now)
		return
	}
	if lost, err := w.store.LostTask(ctx, t.id); err == nil && lost {
		w.lose(ctx, t, errLostByPoller, now)
		return
	}
	var (
		res *api.TaskResult
		job *api.OneClickJob
	)
	if t.op.IsMultiScene() {
		if len(task.Result) == 0 || json.Unmarshal(task.Result, &job) != nil {
			w.reschedule(t, now) // not read by the poller yet
			return
		}
	} else {
		res = &api.TaskResult{ID: t.id, State: task.State}
		if len(task.Result) > 0 {
			json.Unmarshal(task.Result, res)
			res.State, res.Raw = task.State, task.Result
		}
	}
	if err := w.record(ctx, t, task.State, res, job, now); err != nil {
		w.reschedule(t, now)
	}
}

// errLostByPoller is why a follower stops following: the poller found the
// service does not know the task.
var errLostByPoller = lostError{}

type lostError struct{}

func (lostError) Error() string {
	return "the service answered for " + LostWindow.String() + " that it does not know this task"
}
