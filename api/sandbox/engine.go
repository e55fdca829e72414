package sandbox

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"clapper/api"
)

// Callback delivery schedule: success and failed are sent up to three times
// in all, the retries this long after the previous attempt.
var callbackRetryAfter = []time.Duration{5 * time.Second, 30 * time.Second}

const callbackDeliveries = 3

// voiceRetention is how long after its cloning a cloned voice survives
// unless audio-tts uses it; a use within it keeps the voice for good.
const voiceRetention = 168 * time.Hour

// advance simulates every event due by now, in time order: the state at a
// given instant depends only on the plans, the limit and the clock, never on
// how often anyone looked.
func (st *state) advance(now time.Time, maxConcurrent int) {
	for {
		t, ok := st.nextEvent()
		if !ok || t.After(now) {
			break
		}
		if t.After(st.Cursor) {
			st.Cursor = t
		}
		st.step(t, maxConcurrent)
	}
	for id, v := range st.Voices {
		if !v.Kept && !now.Before(v.CreatedAt.Add(voiceRetention)) {
			delete(st.Voices, id)
			st.dirty = true
		}
	}
}

// nextEvent is the earliest time at which some unit changes on its own.
// Admissions and compositions that wait for others are not timed events:
// they happen in hooks, at the time of the event that frees them.
func (st *state) nextEvent() (time.Time, bool) {
	e, ok := st.events.first()
	return e.at, ok
}

// pending reports whether e is still one of its unit's timed events.
func pending(e entry) bool {
	u := e.u
	switch u.State {
	case api.StateCreated:
		return e.at.Equal(u.QueueAt) || e.at.Equal(u.Deadline)
	case api.StateQueueing:
		return e.at.Equal(u.EligibleAt) || e.at.Equal(u.Deadline)
	case api.StateProcessing:
		return e.at.Equal(u.EndAt) || e.at.Equal(u.Deadline)
	}
	return false
}

// waiting holds for a queued task that has not started.
func waiting(e entry) bool {
	return e.u.State == api.StateCreated || e.u.State == api.StateQueueing
}

// queueing holds for an off-peak task that has not started.
func queueing(e entry) bool { return e.u.State == api.StateQueueing }

// step applies every timed event due at t, then what they made possible.
func (st *state) step(t time.Time, maxConcurrent int) {
	st.touched = map[string]bool{}
	var due []*unit
	for {
		e, ok := st.events.first()
		if !ok || e.at.After(t) {
			break
		}
		st.events.pop()
		due = append(due, e.u)
	}
	// In submission order, as callbacks were queued when every unit in
	// flight was looked at; a unit with two events due acts once.
	slices.SortFunc(due, func(a, b *unit) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, u := range slices.Compact(due) {
		switch {
		case u.State == api.StateCreated && u.Kind == kindCompose:
			// Its wait is over; whether its scenes are done is for
			// startComposes to see.
			st.recheck = append(st.recheck, u)
		case u.State == api.StateCreated && !u.QueueAt.After(t):
			if u.Queued {
				st.set(u, api.StateQueueing, t)
			} else {
				st.start(u, t)
			}
		case u.State == api.StateProcessing && !u.EndAt.After(t):
			st.finish(u, t)
		}
		if !u.terminal() && !u.Deadline.IsZero() && !u.Deadline.After(t) {
			// The off-peak window closed before the task finished: the
			// service cancels it and returns its credits.
			st.fail(u, t, api.ReasonCanceled, "not generated within the off-peak window; credits returned")
		}
	}
	st.admit(t, maxConcurrent)
	st.startComposes(t)
	for id := range st.touched {
		if j := st.byID[id]; j != nil {
			st.settleJob(j, t)
		}
	}
}

// admit starts waiting tasks while slots are free, strictly in submission
// order: a task not yet ready to leave the queue holds back every later one.
// Off-peak tasks wait for their own window instead, so they hold back no
// one and are started as soon as their time comes and a slot is free.
func (st *state) admit(t time.Time, maxConcurrent int) {
	for {
		e, ok := st.offPeak.first()
		if !ok || e.at.After(t) {
			break
		}
		st.offPeak.pop()
		st.ready.push(time.Time{}, e.u)
	}
	// The head of the queue, if ready, and the ready off-peak tasks start
	// in submission order.
	for st.running < maxConcurrent {
		from := &st.ready
		e, ok := st.ready.first()
		if h, hok := st.queue.first(); hok && h.u.State == api.StateQueueing && !h.u.EligibleAt.After(t) && (!ok || h.u.Seq < e.u.Seq) {
			from, e, ok = &st.queue, h, true
		}
		if !ok {
			return
		}
		from.pop()
		st.start(e.u, t)
	}
}

// startComposes starts each composition whose scenes are all settled; one
// whose scene failed fails with it. Only compositions whose wait ended or
// whose job changed can have become ready.
func (st *state) startComposes(t time.Time) {
	maybe := st.recheck
	st.recheck = nil
	for id := range st.touched {
		if j := st.byID[id]; j != nil {
			for _, c := range j.Composes {
				maybe = append(maybe, st.byID[c])
			}
		}
	}
	slices.SortFunc(maybe, func(a, b *unit) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, u := range slices.Compact(maybe) {
		if u.State != api.StateCreated || u.QueueAt.After(t) {
			continue
		}
		var failed *unit
		ready := true
		for _, id := range u.Needs {
			n := st.byID[id]
			if !n.terminal() {
				ready = false
				break
			}
			if n.State == api.StateFailed && failed == nil {
				failed = n
			}
		}
		switch {
		case !ready:
		case failed != nil:
			st.fail(u, t, failed.ErrCode, "scene "+strconv.Itoa(failed.Index)+" failed: "+failed.ErrMsg)
		default:
			st.start(u, t)
		}
	}
}

// file puts a unit in flight under everything it waits for.
func (st *state) file(u *unit) {
	if !u.Deadline.IsZero() {
		st.events.push(u.Deadline, u)
	}
	if u.Queued && !u.OffPeak && u.State != api.StateProcessing {
		st.queue.push(time.Time{}, u)
	}
	st.enter(u)
}

// enter puts u under what its state waits for.
func (st *state) enter(u *unit) {
	switch u.State {
	case api.StateCreated:
		if u.Kind != kindCompose || u.QueueAt.After(st.Cursor) {
			st.events.push(u.QueueAt, u)
		} else {
			st.recheck = append(st.recheck, u)
		}
	case api.StateQueueing:
		// Becoming ready is an event only while it is ahead: one ready
		// already starts at the event that frees a slot.
		if u.EligibleAt.After(st.Cursor) {
			st.events.push(u.EligibleAt, u)
		}
		if u.OffPeak {
			st.offPeak.push(u.EligibleAt, u)
		}
	case api.StateProcessing:
		st.events.push(u.EndAt, u)
		if u.Queued {
			st.running++
		}
	}
}

// moved files u anew after a change of state from was.
func (st *state) moved(u *unit, was string) {
	if was == api.StateProcessing && u.Queued {
		st.running--
	}
	switch {
	case !u.terminal():
		st.enter(u)
	case u.Kind == kindTask:
		st.finished = append(st.finished, u)
	}
}

func (st *state) start(u *unit, t time.Time) {
	u.StartedAt = t
	u.EndAt = t.Add(u.ProcDur)
	st.set(u, api.StateProcessing, t)
}

func (st *state) finish(u *unit, t time.Time) {
	if u.Fail != "" {
		st.fail(u, t, u.Fail, api.Explain(u.Fail, 0))
		return
	}
	st.set(u, api.StateSuccess, t)
}

func (st *state) fail(u *unit, t time.Time, code, msg string) {
	u.ErrCode, u.ErrMsg, u.Refunded = code, msg, true
	st.set(u, api.StateFailed, t)
}

// set records a state change and queues its callback.
func (st *state) set(u *unit, s string, t time.Time) {
	was := u.State
	u.State, u.UpdatedAt = s, t
	st.touch(u)
	if u.Kind != kindJob {
		st.moved(u, was)
	}
	if u.Parent != "" && st.touched != nil {
		st.touched[u.Parent] = true
	}
	if u.CallbackURL == "" || s == api.StateCreated || s == api.StateQueueing {
		return
	}
	attempts := callbackDeliveries
	if s == api.StateProcessing {
		attempts = 1 // only the outcome is redelivered
	}
	st.DelivSeq++
	st.Deliveries = append(st.Deliveries, &delivery{ID: st.DelivSeq, Unit: u.ID, State: s, Max: attempts, NextAt: t})
}

// settleJob derives a multi-scene job's state from its children: created
// until one starts, processing while any is unsettled, then the state of its
// newest composition.
func (st *state) settleJob(j *unit, t time.Time) {
	started, busy := false, false
	for _, id := range st.children(j) {
		c := st.byID[id]
		started = started || c.State != api.StateCreated
		busy = busy || !c.terminal()
	}
	s, code, msg := api.StateCreated, "", ""
	switch {
	case !started:
	case busy:
		s = api.StateProcessing
	default:
		last := st.byID[j.Composes[len(j.Composes)-1]]
		s, code, msg = last.State, last.ErrCode, last.ErrMsg
	}
	if s == j.State {
		return
	}
	j.ErrCode, j.ErrMsg = code, msg
	j.Refunded = s == api.StateFailed && st.latestSuccess(j.Composes) == nil
	st.set(j, s, t) // touches j
}

func (st *state) children(j *unit) []string {
	var ids []string
	for _, versions := range j.Scenes {
		ids = append(ids, versions...)
	}
	return append(ids, j.Composes...)
}

// latestSuccess is the newest successful unit among ids.
func (st *state) latestSuccess(ids []string) *unit {
	for i := len(ids) - 1; i >= 0; i-- {
		if u := st.byID[ids[i]]; u.State == api.StateSuccess {
			return u
		}
	}
	return nil
}
