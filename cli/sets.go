package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/track"
	"clapper/history"
	"clapper/internal/textutil"
	"clapper/studio"
)

// serviceSlots is how many tasks the service runs (or queues) at once per
// account: a set never has more than that at the service; the rest wait on
// our side.
var serviceSlots = track.DefaultSchedule().Slots

// retryPause is how long a line the service refused for now (429: too many
// tasks) waits before it is sent again when none of the set is running.
const retryPause = 5 * time.Second

// setRun sends a set's requests, at most serviceSlots at the service at
// once, and follows them until each ends (or, with untilSent, until the
// last is sent). Each line is tied to its task in history as it is
// recorded, so a run stopped anyhow is taken up again by the next: lines
// sent before are followed, never sent twice.
type setRun struct {
	app       *App
	s         *studio.Studio
	setID     int64
	noun      string // "batch" or "variations": what the summary names
	json      bool
	untilSent bool
	tty       bool

	total    int
	queue    []setRequest           // never sent, in order
	inflight map[string]*setRequest // at the service, by task id
	ended    map[int]string         // line -> final state
	results  map[int]*api.TaskResult
	taskIDs  map[int]string
}

// setSummary is what a run ends with.
type setSummary struct {
	Kind    string        `json:"kind"`
	Done    int           `json:"done"`
	Failed  int           `json:"failed"`
	Unknown int           `json:"unknown"`
	Waiting int           `json:"waiting"`
	Credits int64         `json:"credits"`
	Lines   []summaryLine `json:"lines"`
}

type summaryLine struct {
	Line   int    `json:"line"`
	Label  string `json:"label,omitempty"`
	TaskID string `json:"task_id,omitempty"`
	State  string `json:"state"`
}

func newSetRun(app *App, s *studio.Studio, setID int64, noun string, asJSON bool) *setRun {
	return &setRun{app: app, s: s, setID: setID, noun: noun, json: asJSON, tty: !asJSON && isTerminal(app.Err),
		inflight: map[string]*setRequest{}, ended: map[int]string{},
		results: map[int]*api.TaskResult{}, taskIDs: map[int]string{}}
}

// run takes up the set's lines as history holds them and drives them to
// their end.
func (r *setRun) run(ctx context.Context, reqs []setRequest) (*setSummary, error) {
	members, err := r.s.Store.SetMembers(ctx, r.setID)
	if err != nil {
		return nil, err
	}
	sent := map[int]int64{}
	for _, m := range members {
		if m.LocalID != 0 {
			sent[m.Line] = m.LocalID
		}
	}
	r.total = len(reqs)
	w := r.s.Watcher
	for i := range reqs {
		req := &reqs[i]
		id, ok := sent[req.line]
		if !ok {
			r.queue = append(r.queue, *req)
			continue
		}
		t, err := r.s.Store.Task(ctx, id)
		if err != nil {
			return nil, err
		}
		r.taskIDs[req.line] = t.TaskID
		switch {
		case t.TaskID == "" && t.State == history.StateRejected && t.Rejection != nil && t.Rejection.Retryable:
			r.queue = append(r.queue, *req) // refused for now (429): sent again
		case t.TaskID == "" && t.State == history.StateRejected:
			r.ended[req.line] = api.StateFailed
		case t.TaskID == "":
			r.ended[req.line] = "unknown" // clapper history resolves it
		case api.IsTerminal(t.State):
			r.ended[req.line] = t.State
		default:
			r.inflight[t.TaskID] = req
			w.Watch(t.TaskID, t.Operation, t.Model, t.State, t.CreatedAt)
		}
	}
	if resumed := len(reqs) - len(r.queue); resumed > 0 {
		r.say("%s sent before: %d ended, %d followed; %d to send", r.noun, len(r.ended), len(r.inflight), len(r.queue))
	}
	if len(r.queue) > 0 && len(r.queue)+len(r.inflight) > serviceSlots {
		r.say("at most %d at the service at once; the rest wait here", serviceSlots)
	}
	r.s.Follow(ctx)
	retry := time.NewTimer(0)
	defer retry.Stop()
	<-retry.C
	for {
		if err := r.fill(ctx, retry); err != nil {
			return r.summary(ctx), err
		}
		r.draw()
		if len(r.inflight) == 0 && len(r.queue) == 0 || r.untilSent && len(r.queue) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			r.endLine()
			return r.summary(ctx), &ExitError{Code: exitInterrupted, Err: fmt.Errorf("stopped; the %s is in clapper history: run the same command again to send the rest and follow what was sent", r.noun)}
		case <-retry.C:
		case ev := <-w.Events():
			r.take(ev)
		}
	}
	r.endLine()
	return r.summary(ctx), nil
}

// fill sends queued lines while the service has room for the set.
func (r *setRun) fill(ctx context.Context, retry *time.Timer) error {
	for len(r.queue) > 0 && len(r.inflight) < serviceSlots {
		req := r.queue[0]
		sub, err := r.s.SendInSet(ctx, req.op, req.body, &history.SetLine{SetID: r.setID, Line: req.line})
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil // the caller reports the stop
		case errors.Is(err, history.ErrLineSent):
			// Another run of the same set sent it meanwhile: it follows it.
			r.queue = r.queue[1:]
			r.ended[req.line] = "unknown"
			continue
		case isRetryable(err) && !errors.Is(err, track.ErrOutcomeUnknown):
			// Too many tasks at the service (ours or others'): try again once
			// one ends, or after a pause when none of ours runs.
			r.note("line %d: %s; sent again later", req.line, api.CleanText(err.Error()))
			if len(r.inflight) == 0 {
				retry.Reset(retryPause)
			}
			return nil
		case errors.Is(err, track.ErrOutcomeUnknown):
			r.queue = r.queue[1:]
			r.ended[req.line] = "unknown"
			r.note("line %d: %s", req.line, api.CleanText(submitError(err).Error()))
			continue
		default:
			r.queue = r.queue[1:]
			r.ended[req.line] = api.StateFailed
			r.note("line %d: %s", req.line, api.CleanText(describeAPIError(err).Error()))
			continue
		}
		r.queue = r.queue[1:]
		id := sub.Task.Identifier()
		r.taskIDs[req.line] = id
		r.note("line %d%s: task %s %s", req.line, labelled(req.label), api.CleanText(id), api.CleanText(sub.Task.State))
		if api.IsTerminal(sub.Task.State) || id == "" {
			r.ended[req.line] = sub.Task.State
			r.results[req.line] = track.SyncResult(sub.Task)
			continue
		}
		t, err := r.s.Store.Task(ctx, sub.LocalID)
		if err != nil {
			return err
		}
		r.inflight[id] = &req
		r.s.Watcher.Watch(id, req.op, t.Model, sub.Task.State, t.CreatedAt)
	}
	return nil
}

// take records what the watcher saw of a task of the set.
func (r *setRun) take(ev track.Event) {
	req, ours := r.inflight[ev.TaskID]
	if !ours {
		return
	}
	switch {
	case ev.Kind == track.EventLost:
		delete(r.inflight, ev.TaskID)
		r.ended[req.line] = api.StateFailed
		r.note("line %d: the service does not know task %s (%s)", req.line, api.CleanText(ev.TaskID), api.CleanText(ev.Err.Error()))
	case ev.Kind == track.EventState && api.IsTerminal(ev.To):
		delete(r.inflight, ev.TaskID)
		r.ended[req.line] = ev.To
		r.results[req.line] = ev.Result
		r.note("line %d%s: task %s %s", req.line, labelled(req.label), api.CleanText(ev.TaskID), api.CleanText(ev.To))
	}
}

func labelled(label string) string {
	if label == "" {
		return ""
	}
	return " (" + label + ")"
}

// counts tallies the lines that ended.
func (r *setRun) counts() (done, failed, unknown int) {
	for _, st := range r.ended {
		switch st {
		case api.StateSuccess:
			done++
		case "unknown":
			unknown++
		default:
			failed++
		}
	}
	return done, failed, unknown
}

// draw redraws the progress bar on a terminal.
func (r *setRun) draw() {
	if !r.tty {
		return
	}
	done, failed, unknown := r.counts()
	const width = 30
	filled := width * (done + failed + unknown) / max(r.total, 1)
	fmt.Fprintf(r.app.Err, "\r\x1b[2K[%s%s] %d/%d ended · %d failed · %d at the service · %d waiting here",
		strings.Repeat("█", filled), strings.Repeat("░", width-filled), done+failed+unknown, r.total, failed, len(r.inflight), len(r.queue))
}

// endLine ends the progress bar's line.
func (r *setRun) endLine() {
	if r.tty {
		fmt.Fprintln(r.app.Err)
	}
}

// note tells one line's news: above the bar on a terminal, as a plain
// line otherwise (none with --json, whose summary says it all).
func (r *setRun) note(format string, args ...any) {
	if r.json {
		return
	}
	if r.tty {
		io.WriteString(r.app.Err, "\r\x1b[2K")
	}
	fmt.Fprintf(r.app.Err, "  "+format+"\n", args...)
}

// say tells something about the whole run.
func (r *setRun) say(format string, args ...any) {
	if !r.json {
		fmt.Fprintf(r.app.Err, "clapper: "+format+"\n", args...)
	}
}

// summary counts the lines and their credits as history holds them.
func (r *setRun) summary(ctx context.Context) *setSummary {
	done, failed, unknown := r.counts()
	sum := &setSummary{Kind: r.noun, Done: done, Failed: failed, Unknown: unknown, Waiting: len(r.queue)}
	members, err := r.s.Store.SetMembers(context.WithoutCancel(ctx), r.setID)
	if err != nil {
		r.say("the %s's lines could not be read back for the summary: %v", r.noun, err)
	}
	for _, m := range members {
		line := summaryLine{Line: m.Line, Label: m.Label, State: "waiting"}
		if m.LocalID != 0 {
			if t, err := r.s.Store.Task(context.WithoutCancel(ctx), m.LocalID); err == nil {
				sum.Credits += t.Credits
				line.TaskID, line.State = t.TaskID, t.State
			}
		}
		sum.Lines = append(sum.Lines, line)
	}
	return sum
}

// write prints the summary: JSON with --json, else one line.
func (sum *setSummary) write(w io.Writer, asJSON bool) error {
	if asJSON {
		return writeJSON(w, sum, true)
	}
	line := fmt.Sprintf("%s: %d done, %d failed", sum.Kind, sum.Done, sum.Failed)
	if sum.Unknown > 0 {
		line += fmt.Sprintf(", %d of unknown outcome (clapper history resolve)", sum.Unknown)
	}
	if sum.Waiting > 0 {
		line += fmt.Sprintf(", %d not sent yet", sum.Waiting)
	}
	line += "; " + textutil.Plural(int(sum.Credits), "credit")
	_, err := fmt.Fprintln(w, line)
	return err
}
