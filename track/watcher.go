package track

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"clapper/api"
	"clapper/record"
)

// EventKind says what an Event reports.
type EventKind int

const (
	// EventState: a task or job changed state (written to history first).
	EventState EventKind = iota
	// EventJobUpdated: a multi-scene job changed without its own state
	// changing (a scene was edited or recomposed).
	EventJobUpdated
	// EventPollFailed: a read failed; the watcher backs off and retries.
	EventPollFailed
	// EventDownload: a result download progressed, finished or failed.
	EventDownload
	// EventLost: the service answered reads in a row for LostWindow, in
	// this run or over several, that it does not know the task (another
	// account, a reset sandbox, a wrong id). History marks it lost and keeps
	// its state; no run follows it again unless the user asks
	// (history.Store.LostTasks lists it).
	EventLost
	// EventPaused: the service asked to wait (a 429 with Retry-After);
	// every read waits until Until, at most MaxPause from At.
	EventPaused
	// EventSending: a request is recorded in history (its row LocalID,
	// state submitting) and leaves now; the service has not answered, so
	// it has no TaskID yet. Only a send whose context carries WithSending
	// reports it.
	EventSending
)

// MaxPause is the longest wait a Retry-After imposes on the reads: a
// longer one is cut to it, and the reads then ask again.
const MaxPause = 2 * time.Minute

// Event is one thing the tracker learned, already recorded in history.
type Event struct {
	Kind      EventKind
	TaskID    string
	Operation api.Operation
	From, To  string
	Result    *api.TaskResult  // task reads
	Job       *api.OneClickJob // multi-scene reads
	Download  *record.Download
	Err       error
	At        time.Time
	Until     time.Time // EventPaused: when reads resume
	LocalID   int64     // EventSending: the request's row in history
}

// WatcherOptions tune the watcher; zero values take the defaults.
type WatcherOptions struct {
	// RequestsPerSecond is the budget of all reads together (default 4);
	// Burst is how many may go at once after a quiet spell (default two
	// seconds of the budget, at least 1).
	RequestsPerSecond float64
	Burst             int
	Schedule          *Schedule
	Clock             Clock
	// AccountRead, when set, is given each read of the account's counts
	// the watcher makes (GET credits, while tasks are likely to end), as
	// it was read, outside the watcher's lock: a team's poller keeps them
	// for every machine's header.
	AccountRead func(ctx context.Context, c *api.Credits, at time.Time)
}

// Watcher reads every task in flight until it succeeds or fails.
type Watcher struct {
	client *api.Client
	store  Store
	clock  Clock
	sched  *Schedule
	// accountRead is WatcherOptions.AccountRead.
	accountRead func(context.Context, *api.Credits, time.Time)
	limiter     *rate.Limiter
	events      chan Event
	wake        chan struct{}

	// recording serializes record, so that a read and a callback about one
	// task cannot both report the same change.
	recording sync.Mutex
	// loading serializes Load; loaded is the history's change sequence it
	// has read up to.
	loading sync.Mutex
	loaded  int64

	mu    sync.Mutex
	tasks map[string]*watched
	queue taskHeap
	// order holds every followed task and queued the queueing ones, both
	// in the service's queue order, so the queue in front of a task and the
	// oldest queued task are found without walking every task.
	order, queued ranked
	// aliases maps the scenes and compositions of a followed multi-scene
	// job to the job: the service calls back with a sub-job's id.
	aliases map[string]string
	// subs lists the aliases of each job, to forget them with the job.
	subs map[string][]string
	// early holds callbacks for ids not followed yet, by arrival: a
	// callback can outrun the creation answer that starts the following.
	early map[string]time.Time
	// pausedUntil holds every read after a 429 with Retry-After: the
	// service asked the whole client to wait, not one task.
	pausedUntil time.Time

	// Requests counts reads sent, for the benchmark and the status line.
	requests int

	// probe reads the account's counts for the tasks in their windows
	// (probe.go); counted are the tasks followed that the counts include,
	// jobs the multi-scene jobs followed (whose scenes they include too).
	probe         accountProbe
	counted, jobs int

	// lease is this watcher's part in the one poller per history.
	lease pollerLeaseState
}

// watched is one task the watcher follows.
type watched struct {
	id         string
	op         api.Operation
	model      string
	state      string
	created    time.Time
	stateSince time.Time // when this client first saw the current state
	// running is when it started processing, as early as the reads allow:
	// the last read that saw it before (or the moment a slot may have
	// freed for it), not the one that first saw it processing; zero before.
	running time.Time
	// lastRead is when it was last read; slotFreed is when a finish that
	// freed a slot for it may have happened (the finished task's read
	// before the one that saw it end).
	lastRead, slotFreed time.Time
	offPeak             bool // the service said so: it runs in quiet hours
	next                time.Time
	failures            int
	notFound            int // TaskNotFound answers in a row in this run
	// notFoundSince is when this run's answers began.
	notFoundSince time.Time
	// notFoundRun: history may hold a run of 404s for the task (from this
	// run or an earlier one); the next answer ends it.
	notFoundRun bool
	// woken: a callback came while a read was under way, whose answer may
	// predate it, so the task is read again at once.
	woken bool
	// opens: when next comes, its window opens and it joins the account
	// probe's watch, with no read of its own.
	opens bool
	index int // in the heap; -1 when not queued
}

// lostAfter is how many TaskNotFound answers in a row make a task lost,
// once they have gone on for LostWindow: a service that lost its records
// for a moment, or a replica not yet aware of a new task, says so too.
const lostAfter = 3

// LostWindow is how long, over any number of runs, the service must keep
// saying it does not know a task before the task is given up.
const LostWindow = 10 * time.Minute

// NewWatcher returns a watcher; call Load to pick up tasks left in flight
// by an earlier run, then Run (or Step, under a fake clock).
func NewWatcher(client *api.Client, store Store, o WatcherOptions) *Watcher {
	if o.RequestsPerSecond <= 0 {
		o.RequestsPerSecond = 4
	}
	if o.Burst <= 0 {
		// Two seconds' worth: a budget of 1 read a second never starts with
		// a volley of eight.
		o.Burst = max(1, int(2*o.RequestsPerSecond))
	}
	if o.Schedule == nil {
		o.Schedule = DefaultSchedule()
	}
	if o.Clock == nil {
		o.Clock = WallClock
	}
	return &Watcher{
		// One attempt per read: the watcher schedules its own retries, inside
		// the budget, instead of the client retrying outside it.
		client: client.With(api.WithRetry(api.RetryPolicy{Attempts: 1})),
		store:  store, clock: o.Clock, sched: o.Schedule, accountRead: o.AccountRead,
		limiter: rate.NewLimiter(rate.Limit(o.RequestsPerSecond), o.Burst),
		events:  make(chan Event, 1024),
		wake:    make(chan struct{}, 1),
		tasks:   map[string]*watched{},
		aliases: map[string]string{},
		subs:    map[string][]string{},
		early:   map[string]time.Time{},
	}
}

// Events delivers one Event per change, after it is written to history.
func (w *Watcher) Events() <-chan Event { return w.events }

// Requests is how many reads the watcher has sent.
func (w *Watcher) Requests() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.requests
}

// Watching is how many tasks are followed.
func (w *Watcher) Watching() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.tasks)
}

// Load follows every task history holds in flight (also after a restart),
// and every multi-scene job with an edit or a composition under way. Called
// again (on every change to the history), it reads only the tasks written
// since the last call, so a history with 20,000 tasks in flight costs a few
// rows per change, not 20,000.
func (w *Watcher) Load(ctx context.Context) error {
	w.share() // it follows all in flight: one such watcher polls (poller.go)
	w.loading.Lock()
	defer w.loading.Unlock()
	tasks, next, err := w.store.FollowableSince(ctx, w.loaded)
	if err != nil {
		return err
	}
	w.watchAll(tasks)
	w.loaded = next
	return nil
}

func (w *Watcher) watchAll(tasks []record.Task) {
	for _, t := range tasks {
		created := t.ServiceCreatedAt
		if created.IsZero() {
			created = t.CreatedAt
		}
		w.Watch(t.TaskID, t.Operation, t.Model, t.State, created)
	}
}

// Watch follows a task from its current state. A synchronous operation
// that answered queueing (the spec allows it for audio-clone and audio-tts)
// is followed like any task until it settles.
func (w *Watcher) Watch(id string, op api.Operation, model, state string, created time.Time) {
	// An id no service gives (an older clapper recorded it unchecked) is
	// never read nor printed: it could forge a line of output.
	if settled(state) || api.CheckID(id) != nil {
		return
	}
	if w.sched.needsSeed(op, model) {
		// What earlier runs saw, before this run has seen any end. Best
		// effort: without it the built-in guess holds.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if times, err := w.store.RunningTimes(ctx, op, model); err == nil {
			w.sched.Seed(op, model, times)
		}
		cancel()
	}
	now := w.clock.Now()
	w.mu.Lock()
	if _, ok := w.tasks[id]; !ok {
		t := &watched{id: id, op: op, model: model, state: state, created: created, stateSince: now, notFoundRun: true, index: -1}
		if state == api.StateProcessing {
			t.running = now
		}
		w.tasks[id] = t
		w.order.add(t)
		if state == api.StateQueueing {
			w.queued.add(t)
		}
		if op.IsMultiScene() {
			w.jobs++
		} else {
			w.counted++
		}
		w.planLocked(t, now)
		if at, ok := w.early[id]; ok {
			delete(w.early, id)
			if now.Sub(at) < earlyWindow {
				t.next, t.opens = now, false
			}
		}
		heap.Push(&w.queue, t)
	}
	w.mu.Unlock()
	w.poke()
}

// Wake reads a followed task (or the multi-scene job a scene belongs to) as
// soon as the request budget allows, and reports whether it is followed. A
// callback calls it: the callback says something changed, the read says
// what, and only the read is recorded. An id not followed is not read; if
// Watch follows it within earlyWindow, its first read comes at once.
func (w *Watcher) Wake(id string) bool {
	w.mu.Lock()
	t, ok := w.tasks[id]
	if !ok {
		t, ok = w.tasks[w.aliases[id]]
	}
	if !ok {
		w.rememberLocked(id)
	}
	if ok {
		if t.index < 0 {
			t.woken = true
		} else {
			w.wakeLocked(t, w.clock.Now())
		}
	}
	w.mu.Unlock()
	if ok {
		w.poke()
	}
	return ok
}

// earlyWindow is how long a callback for an id not followed yet is kept,
// and maxEarly how many are: enough for a burst of creations.
const (
	earlyWindow = time.Minute
	maxEarly    = 256
)

func (w *Watcher) rememberLocked(id string) {
	now := w.clock.Now()
	if len(w.early) >= maxEarly {
		for k, at := range w.early {
			if now.Sub(at) >= earlyWindow {
				delete(w.early, k)
			}
		}
	}
	if len(w.early) < maxEarly {
		w.early[id] = now
	}
}

func (w *Watcher) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run reads due tasks until ctx ends, sleeping on the wall clock between.
func (w *Watcher) Run(ctx context.Context) error {
	defer w.releasePoller()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next := w.Step(ctx)
		wait := time.Hour
		if !next.IsZero() {
			wait = max(next.Sub(w.clock.Now()), time.Millisecond)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.wake:
		case <-timer.C:
		}
	}
}

// Step reads every task due by now (within the request budget) and returns
// when the next one is due; zero when nothing is followed.
func (w *Watcher) Step(ctx context.Context) time.Time {
	for ctx.Err() == nil {
		now := w.clock.Now()
		w.mu.Lock()
		// The next read: a task's, or the account's counts (probe.go).
		var t *watched
		due := w.probe.at
		if !w.probingLocked() {
			due = time.Time{}
		}
		if len(w.queue) > 0 && (due.IsZero() || !w.queue[0].next.After(due)) {
			t, due = w.queue[0], w.queue[0].next
		}
		if look, ok := w.lookDue(); ok && (due.IsZero() || look.Before(due)) {
			if look.After(now) {
				w.mu.Unlock()
				return look
			}
			// The lease is no read of the service: no budget spent.
			w.mu.Unlock()
			w.polling(ctx, now)
			continue
		}
		if due.IsZero() {
			w.mu.Unlock()
			return time.Time{}
		}
		if due.After(now) {
			w.mu.Unlock()
			return due
		}
		if paused := w.pausedUntil; paused.After(now) {
			w.mu.Unlock()
			return paused
		}
		r := w.limiter.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			// Over budget: every due read waits for the bucket to refill.
			r.CancelAt(now)
			w.mu.Unlock()
			return now.Add(d)
		}
		if t != nil && t.opens && w.probingLocked() {
			// Its window opens: the probe watches it from now, unread.
			r.CancelAt(now)
			w.planLocked(t, now)
			w.queueFix(t)
			w.mu.Unlock()
			continue
		}
		if t != nil {
			heap.Pop(&w.queue)
		} else {
			w.probe.at = time.Time{}
		}
		w.requests++
		w.mu.Unlock()
		switch {
		case t != nil:
			w.poll(ctx, t, now)
		case w.polling(ctx, now):
			w.readCounts(ctx, now)
		}
	}
	return time.Time{}
}

func (w *Watcher) poll(ctx context.Context, t *watched, now time.Time) {
	if !w.polling(ctx, now) {
		w.followHistory(ctx, t, now)
		return
	}
	var (
		state string
		err   error
		res   *api.TaskResult
		job   *api.OneClickJob
	)
	if t.op.IsMultiScene() {
		job, err = w.client.GetOneClick(ctx, t.id)
		if err == nil {
			state = jobState(job)
		}
	} else {
		res, err = w.client.Get(ctx, t.id)
		if err == nil {
			state = res.State
		}
	}
	if err != nil {
		if e, ok := api.AsError(err); ok && e.TaskUnknown() && w.lost(ctx, t, e, now) {
			return
		}
		w.failed(ctx, t, err)
		return
	}
	w.answered(ctx, t)
	if err := w.record(ctx, t, state, res, job, now); err != nil {
		w.failed(ctx, t, err)
	}
}

// record writes a read to history, tells the UI when something changed, and
// schedules the next read unless the task is done. It always leaves a task
// it still follows in the queue, whatever happens.
func (w *Watcher) record(ctx context.Context, t *watched, state string, res *api.TaskResult, job *api.OneClickJob, now time.Time) error {
	w.recording.Lock()
	defer w.recording.Unlock()
	w.mu.Lock()
	current, prev := w.tasks[t.id] == t, t.state
	w.mu.Unlock()
	if !current {
		return nil // finished or dropped while this read was under way
	}
	if job == nil && !api.Supersedes(prev, state) {
		// An answer behind one already recorded (a service replica
		// lagging), by the order history keeps too: keep following,
		// record nothing.
		w.reschedule(t, now)
		return nil
	}
	var changed bool
	var err error
	if job != nil {
		changed, err = w.store.SaveJob(ctx, *job)
	} else {
		changed, err = w.store.ApplyResult(ctx, t.id, updateFrom(res, now))
	}
	if err != nil {
		w.reschedule(t, now)
		return err
	}
	stateChanged := state != prev
	if stateChanged && state == api.StateSuccess && t.op == api.OpAudioTTS {
		// A queued synthesis that succeeded used its voice. Should this
		// fail, the task stays followed and the next read records it.
		if err := recordSpeech(ctx, w.store, t.id); err != nil {
			w.reschedule(t, now)
			return err
		}
	}
	if changed || stateChanged {
		kind := EventState
		if !stateChanged {
			kind = EventJobUpdated
		}
		w.emit(ctx, Event{Kind: kind, TaskID: t.id, Operation: t.op, From: prev, To: state, Result: res, Job: job, At: now})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t.failures, t.notFound = 0, 0
	if res != nil && res.OffPeak != nil {
		t.offPeak = *res.OffPeak
	}
	if stateChanged {
		if prev == api.StateQueueing {
			w.queued.remove(t)
		} else if state == api.StateQueueing {
			w.queued.add(t)
		}
		t.state, t.stateSince = state, now
		if api.StateRank(state) >= api.StateRank(api.StateProcessing) && t.running.IsZero() {
			t.running = now
			if !t.lastRead.IsZero() {
				t.running = latest(t.lastRead, t.slotFreed)
			}
		}
	}
	lastRead := t.lastRead
	t.lastRead = now
	if job != nil {
		for _, rec := range job.JobRecords {
			for _, j := range rec.Jobs {
				if _, ok := w.aliases[j.ID]; !ok {
					w.aliases[j.ID] = t.id
					w.subs[t.id] = append(w.subs[t.id], j.ID)
				}
			}
		}
	}
	if settled(state) && (job == nil || !jobBusy(job)) {
		if state == api.StateSuccess && !t.running.IsZero() && !lastRead.IsZero() {
			// It ended between the last two reads: halfway, as well as
			// the reads can tell.
			w.sched.Observe(t.op, t.model, lastRead.Add(now.Sub(lastRead)/2).Sub(t.running))
		}
		w.dropLocked(t)
		w.freeSlotLocked(now, lastRead)
		w.huntReadLocked(t, true, now)
		return nil
	}
	w.scheduleLocked(t, now)
	w.huntReadLocked(t, false, now)
	return nil
}

func (w *Watcher) emit(ctx context.Context, e Event) {
	select {
	case w.events <- e:
	case <-ctx.Done():
	}
}
