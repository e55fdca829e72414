package studio

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/track"
)

// SetSlots is how many tasks the service runs (or queues) at once per
// account: a set never has more than that at the service; the rest wait on
// our side.
var SetSlots = track.DefaultSchedule().Slots

// SetRetryPause is how long a line the service refused for now (429: too
// many tasks) waits before it is sent again when none of the set is
// running.
var SetRetryPause = 5 * time.Second

// stateUnknown is a set line's outcome when it may or may not have reached
// the service (clapper history resolves it).
const stateUnknown = "unknown"

// ErrSetStopped ends a set run whose context was cancelled: what was sent
// is in history, and the lines never sent are sent by the next run.
var ErrSetStopped = errors.New("set run stopped")

// SetRequest is one request of a set: a batch file's line, or a version
// of one request.
type SetRequest struct {
	Line  int // the file's line number, or the version's number
	Op    api.Operation
	Body  map[string]any
	Label string // what tells a version from its siblings (seed=7)
	// Parents are the tasks whose results the request was filled with (sent
	// onward), one per field. They are not kept with the set: a run taken
	// up after a restart finds them again by their result URLs.
	Parents []record.Parent
	// Content tells what a batch line asks for (record.SetMember.Content).
	Content string
}

// SetMembers are the history rows of a set's requests.
func SetMembers(reqs []SetRequest) []record.SetMember {
	out := make([]record.SetMember, len(reqs))
	for i, r := range reqs {
		out[i] = record.SetMember{Line: r.Line, Operation: r.Op, Label: r.Label, Content: r.Content}
	}
	return out
}

// SetPrice prices requests together. Credits sums the prices known; when
// some are not, Known still holds (the sum is a floor, enough to refuse
// on) and the text says how many.
func (s *Studio) SetPrice(reqs []SetRequest) Price {
	var p Price
	unknown := 0
	for _, r := range reqs {
		q := s.Price(r.Op, r.Body)
		if !q.Known {
			unknown++
			continue
		}
		p.Credits += q.Credits
	}
	p.Known = p.Credits > 0 || unknown == 0
	p.Text = textutil.Plural(int(p.Credits), "credit")
	if unknown > 0 {
		p.Text = fmt.Sprintf("at least %s (%d of %d priced: the service publishes no price table)", p.Text, len(reqs)-unknown, len(reqs))
	}
	return p
}

// SetRun sends a set's requests, at most SetSlots at the service at once,
// and follows them until each ends (or, with UntilSent, until the last is
// sent). Each line is tied to its task in history as it is recorded, so a
// run stopped anyhow is taken up again by the next: lines sent before are
// followed, never sent twice. The CLI runs one in the foreground (Run); the
// TUI in the background (StartSet), fed by the studio's relay.
type SetRun struct {
	s     *Studio
	SetID int64
	// Noun names the set in what the run says: "batch", "variations".
	Noun string
	reqs []SetRequest
	// UntilSent ends the run once the last line is sent.
	UntilSent bool
	// Note tells one line's news; Say something about the whole run;
	// Progress is called after each round of sends and events. Each may
	// be nil.
	Note, Say func(format string, args ...any)
	Progress  func(SetProgress)
	// Explain turns a refused send into what the user reads (nil: the
	// error and the service's explanation of its code).
	Explain func(error) error
	// OverCap: the person said to send past the credit caps (OverCap).
	OverCap bool
	// prices are the lines' prices, by line, taken on the first hold.
	prices map[int]Price

	mu       sync.Mutex
	queue    []SetRequest           // never sent, in order
	inflight map[string]*SetRequest // at the service, by task id
	ended    map[int]string         // line -> final state
	results  map[int]*api.TaskResult
	taskIDs  map[int]string
	offered  []track.Event // from the relay, not taken yet
	wake     chan struct{}
	// resumed: the lines are sorted from history already (StartSet does
	// it before returning, so the waiting lines show at once).
	resumed bool
	// lastNote is the last line's news, for a screen that shows the set.
	lastNote string
}

// SetProgress is where a run stands.
type SetProgress struct {
	Total, Done, Failed, Unknown, AtService, Waiting int
}

// NewSetRun prepares the run of set setID's requests.
// place names a request of the run as people know it: a batch's line, a
// set of variations' version.
func (r *SetRun) place(n int) string {
	if r.Noun == "variations" {
		return fmt.Sprintf("version %d", n)
	}
	return fmt.Sprintf("line %d", n)
}

func (s *Studio) NewSetRun(setID int64, noun string, reqs []SetRequest) *SetRun {
	return &SetRun{s: s, SetID: setID, Noun: noun, reqs: reqs,
		inflight: map[string]*SetRequest{}, ended: map[int]string{},
		results: map[int]*api.TaskResult{}, taskIDs: map[int]string{}, wake: make(chan struct{}, 1)}
}

func (r *SetRun) note(format string, args ...any) {
	r.mu.Lock()
	r.lastNote = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	if r.Note != nil {
		r.Note(format, args...)
	}
}

func (r *SetRun) say(format string, args ...any) {
	if r.Say != nil {
		r.Say(format, args...)
	}
}

// Result is a line's result as the run saw it end (nil when it did not).
func (r *SetRun) Result(line int) (taskID string, res *api.TaskResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.taskIDs[line], r.results[line]
}

// Run takes up the set's lines as history holds them and drives them to
// their end. A cancelled ctx returns ErrSetStopped.
func (r *SetRun) Run(ctx context.Context) error {
	if !r.resumed {
		if err := r.resume(ctx); err != nil {
			return err
		}
	}
	// The unsent lines are held for as a whole, against the caps, before
	// the first is sent: another send cannot take the room the set was
	// checked for. The hold is renewed while the run runs and released
	// when it ends.
	if err := r.hold(ctx, true); err != nil {
		return err
	}
	defer r.s.store.ReserveSet(context.WithoutCancel(ctx), r.SetID, 0, nil)
	beat := time.NewTicker(setBeat)
	defer beat.Stop()
	// The studio's relay reads the backend's events and hands each to the
	// running sets (take), saving results on the way as for any task.
	r.s.Follow(ctx)
	r.s.addSet(r)
	defer r.s.removeSet(r)
	retry := time.NewTimer(0)
	defer retry.Stop()
	<-retry.C
	for {
		r.takeOffered()
		if err := r.fill(ctx, retry); err != nil {
			return err
		}
		p := r.progress()
		if r.Progress != nil {
			r.Progress(p)
		}
		if p.AtService == 0 && p.Waiting == 0 || r.UntilSent && p.Waiting == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ErrSetStopped
		case <-retry.C:
		case <-r.wake:
		case <-beat.C:
			r.hold(ctx, false) // best effort: a missed beat lapses a minute later
		}
	}
}

// setBeat is how often a run renews its hold (the history lets a hold
// lapse a minute after its last renewal).
const setBeat = 15 * time.Second

// hold reserves the price of the lines not sent yet; checked, against the
// caps the set is held to (none when the person allowed it past them).
func (r *SetRun) hold(ctx context.Context, checked bool) error {
	r.mu.Lock()
	unsent := slices.Clone(r.queue)
	r.mu.Unlock()
	p := r.unsentPrice(unsent)
	var caps []record.Cap
	if checked && !r.OverCap && !overCap(ctx) {
		caps = r.s.caps(p.Known, r.s.opts.Origin)
	}
	err := r.s.store.ReserveSet(ctx, r.SetID, p.Credits, caps)
	var capped *record.CapExceeded
	if errors.As(err, &capped) {
		ce := r.s.capError(capped, p)
		ce.Sending = "this " + r.Noun
		if r.Noun == "variations" {
			ce.Sending = "these variations"
		}
		return ce
	}
	return err
}

// unsentPrice is the price of the lines not sent yet. Each line is priced
// once, on the run's first hold: on a live service a price is a read of
// history, and a batch of thousands renews its hold every 15 s.
func (r *SetRun) unsentPrice(unsent []SetRequest) Price {
	if r.prices == nil {
		r.prices = map[int]Price{}
		for _, req := range unsent {
			r.prices[req.Line] = r.s.Price(req.Op, req.Body)
		}
	}
	var p Price
	unknown := 0
	for _, req := range unsent {
		q := r.prices[req.Line]
		if !q.Known {
			unknown++
		}
		p.Credits += q.Credits
	}
	p.Known = p.Credits > 0 || unknown == 0
	p.Text = textutil.Plural(int(p.Credits), "credit")
	return p
}

// resume sorts the set's lines into never sent (queued), at the service
// (followed) and ended, as history holds them.
// refusedForNow reports a set's line whose request the service refused
// for now (a 429): it is still to send. With a line tied to no request,
// it is the one rule of what a set still sends, for every run and check.
func refusedForNow(t record.Task) bool {
	return t.TaskID == "" && t.State == record.StateRejected && t.Rejection != nil && t.Rejection.Retryable
}

// Unsent are a set's requests still to send, by the rule every run of it
// follows (a line tied to no request, or to one refused for now): what a
// resumed batch is priced and checked against the caps by.
func (s *Studio) Unsent(ctx context.Context, setID int64, reqs []SetRequest) ([]SetRequest, error) {
	members, err := s.store.SetMembers(ctx, setID)
	if err != nil {
		return nil, err
	}
	tied := map[int]int64{}
	for _, m := range members {
		tied[m.Line] = m.LocalID
	}
	var out []SetRequest
	for _, req := range reqs {
		id := tied[req.Line]
		if id == 0 {
			out = append(out, req)
			continue
		}
		t, err := s.store.Task(ctx, id)
		if err != nil {
			return nil, err
		}
		if refusedForNow(t) {
			out = append(out, req)
		}
	}
	return out, nil
}

func (r *SetRun) resume(ctx context.Context) error {
	members, err := r.s.store.SetMembers(ctx, r.SetID)
	if err != nil {
		return err
	}
	sent := map[int]int64{}
	for _, m := range members {
		if m.LocalID != 0 {
			sent[m.Line] = m.LocalID
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resumed = true
	for i := range r.reqs {
		req := &r.reqs[i]
		id, ok := sent[req.Line]
		if !ok {
			r.queue = append(r.queue, *req)
			continue
		}
		t, err := r.s.store.Task(ctx, id)
		if err != nil {
			return err
		}
		r.taskIDs[req.Line] = t.TaskID
		switch {
		case refusedForNow(t):
			r.queue = append(r.queue, *req) // sent again
		case t.TaskID == "" && t.State == record.StateRejected:
			r.ended[req.Line] = api.StateFailed
		case t.TaskID == "":
			r.ended[req.Line] = stateUnknown
		case api.IsTerminal(t.State):
			r.ended[req.Line] = t.State
		default:
			r.inflight[t.TaskID] = req
			r.s.watcher.Watch(t.TaskID, t.Operation, t.Model, t.State, t.CreatedAt)
		}
	}
	if len(r.reqs) > len(r.queue) {
		r.say("%s sent before: %d ended, %d followed; %d to send", r.Noun, len(r.ended), len(r.inflight), len(r.queue))
	}
	if len(r.queue) > 0 && len(r.queue)+len(r.inflight) > SetSlots {
		r.say("at most %d at the service at once; the rest wait here", SetSlots)
	}
	return nil
}

// fill sends queued lines while the service has room for the set.
func (r *SetRun) fill(ctx context.Context, retry *time.Timer) error {
	for {
		more, err := r.sendNext(ctx, retry)
		if err != nil || !more {
			return err
		}
	}
}

// sendNext sends the first queued line when the service has room for it;
// more tells whether to go on with the next.
func (r *SetRun) sendNext(ctx context.Context, retry *time.Timer) (more bool, err error) {
	// One send of every set at a time: the room checked is the room taken,
	// so two sets never both take the fifth slot.
	r.s.setSendMu.Lock()
	defer r.s.setSendMu.Unlock()
	r.mu.Lock()
	if len(r.queue) == 0 {
		r.mu.Unlock()
		return false, nil
	}
	req := r.queue[0]
	running := len(r.inflight)
	r.mu.Unlock()
	if r.atService() >= SetSlots {
		return false, nil
	}
	if r.OverCap {
		ctx = OverCap(ctx)
	}
	sub, err := r.s.sendLinked(ctx, req.Op, req.Body, &record.SetLine{SetID: r.SetID, Line: req.Line}, req.Parents)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return false, nil // the loop reports the stop
	case errors.Is(err, record.ErrLineSent):
		// Another run of the same set sent it meanwhile: it follows it.
		r.end(req.Line, stateUnknown)
		return true, nil
	case IsRetryable(err) && !errors.Is(err, track.ErrOutcomeUnknown):
		// Too many tasks at the service (ours or others'): try again once
		// one ends, or after a pause when none of ours runs.
		r.note("%s: %s; sent again later", r.place(req.Line), api.CleanText(err.Error()))
		if running == 0 {
			retry.Reset(SetRetryPause)
		}
		return false, nil
	case errors.Is(err, track.ErrOutcomeUnknown):
		r.end(req.Line, stateUnknown)
		r.note("%s: %s", r.place(req.Line), api.CleanText(r.explain(err).Error()))
		return true, nil
	default:
		r.end(req.Line, api.StateFailed)
		r.note("%s: %s", r.place(req.Line), api.CleanText(r.explain(err).Error()))
		return true, nil
	}
	id := sub.Task.Identifier()
	r.mu.Lock()
	r.queue = r.queue[1:]
	r.taskIDs[req.Line] = id
	r.mu.Unlock()
	r.note("%s%s: task %s (#%d) %s", r.place(req.Line), labelled(req.Label), api.CleanText(id), sub.LocalID, api.CleanText(sub.Task.State))
	if id != "" {
		// Every front end hears of the send (the TUI's lists show the task).
		r.s.publish(track.Event{Kind: track.EventState, TaskID: id, Operation: req.Op, To: sub.Task.State, Result: track.SyncResult(sub.Task), At: r.s.Now()})
	}
	if api.IsTerminal(sub.Task.State) || id == "" {
		r.mu.Lock()
		r.ended[req.Line] = sub.Task.State
		r.results[req.Line] = track.SyncResult(sub.Task)
		r.mu.Unlock()
		return true, nil
	}
	r.mu.Lock()
	r.inflight[id] = &req
	r.mu.Unlock()
	r.s.watcher.Watch(id, req.Op, sub.Model, sub.Task.State, sub.Sent)
	return true, nil
}

// atService is how many tasks of sets are at the service: those of every
// set the studio runs, so two sets sent one after the other share the
// service's five.
func (r *SetRun) atService() int { return r.s.setsAtService() }

// offer queues an event of the relay for the run's own loop, which takes
// it between sends (so the room it counts is the room it saw), and wakes
// the loop when ends says a slot may have freed.
func (r *SetRun) offer(ev track.Event, ends bool) {
	r.mu.Lock()
	r.offered = append(r.offered, ev)
	r.mu.Unlock()
	if ends {
		r.poke()
	}
}

// takeOffered takes the events offered since the last call.
func (r *SetRun) takeOffered() {
	r.mu.Lock()
	evs := r.offered
	r.offered = nil
	r.mu.Unlock()
	for _, ev := range evs {
		r.take(ev)
	}
}

// poke wakes the run's loop to look for room again.
func (r *SetRun) poke() {
	select {
	case r.wake <- struct{}{}:
	default: // one pending wake says it all
	}
}

// end takes the queue's first line off with its final state.
func (r *SetRun) end(line int, state string) {
	r.mu.Lock()
	r.queue = r.queue[1:]
	r.ended[line] = state
	r.mu.Unlock()
}

// take records what the watcher saw of a task of the set.
func (r *SetRun) take(ev track.Event) {
	r.mu.Lock()
	req, ours := r.inflight[ev.TaskID]
	if !ours {
		r.mu.Unlock()
		return
	}
	var news string
	switch {
	case ev.Kind == track.EventLost:
		delete(r.inflight, ev.TaskID)
		r.ended[req.Line] = api.StateFailed
		news = fmt.Sprintf("%s: the service does not know task %s (%s)", r.place(req.Line), api.CleanText(ev.TaskID), api.CleanText(ev.Err.Error()))
	case ev.Kind == track.EventState && api.IsTerminal(ev.To):
		delete(r.inflight, ev.TaskID)
		r.ended[req.Line] = ev.To
		r.results[req.Line] = ev.Result
		news = fmt.Sprintf("%s%s: task %s %s", r.place(req.Line), labelled(req.Label), api.CleanText(ev.TaskID), api.CleanText(ev.To))
		if res := ev.Result; ev.To == api.StateFailed && res != nil && res.ErrCode != "" {
			// Why it failed, in the service's word and in ours.
			news += fmt.Sprintf(" (%s: %s)", api.CleanText(res.ErrCode), api.Explain(res.ErrCode, 0))
		}
	}
	r.mu.Unlock()
	if news != "" {
		r.note("%s", news)
		r.poke()
	}
}

func (r *SetRun) explain(err error) error {
	if r.Explain != nil {
		return r.Explain(err)
	}
	return DescribeAPIError(err)
}

// IsRetryable reports whether a refused send may be sent again as it is:
// the service refused it for now (too many tasks, busy), or it never left.
func IsRetryable(err error) bool {
	if e, ok := api.AsError(err); ok {
		return e.Temporary()
	}
	return api.NeverSent(err)
}

// DescribeAPIError adds the service's explanation of an error code.
func DescribeAPIError(err error) error {
	if e, ok := api.AsError(err); ok {
		return fmt.Errorf("%w\n  %s", err, e.Explanation())
	}
	return err
}

func labelled(label string) string {
	if label == "" {
		return ""
	}
	return " (" + label + ")"
}
