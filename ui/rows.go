package ui

import (
	"fmt"
	"strings"
	"time"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

// spinnerStep is how often the spinner of a task at work turns: five
// steps a second, plainly moving. Each step is a frame, and Bubble Tea
// draws a changed frame whole (a millisecond at 140x40, whatever changed),
// so the spinner's pace is most of what a screen of tasks at work costs.
const spinnerStep = 200 * time.Millisecond

// spinnerFrames turn once per tick while something is in flight.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// queuedFrames are a clock hand that moves once a second: a queued task
// waits and nothing about it changes, so its row moves without redrawing
// the screen at the spinner's pace. An off-peak one, which waits for quiet
// hours (up to 48), keeps a still hand (glyph): the screen is not redrawn
// every second for hours.
var queuedFrames = []string{"◴", "◷", "◶", "◵"}

// motion is the moving glyph of a row in state at now, and which of its
// frames it is; -1 and "" for a row that does not move. Queued rows follow
// the clock's seconds, the others the root's spinner frame.
func motion(state string, offPeak bool, now time.Time, frame int) (string, int) {
	switch {
	case state == api.StateQueueing && offPeak:
		return "", -1
	case state == api.StateQueueing:
		n := int(now.Unix() % int64(len(queuedFrames)))
		return queuedFrames[n], n
	case spins(state):
		n := frame % len(spinnerFrames)
		return spinnerFrames[n], n
	}
	return "", -1
}

// spins reports whether a row in state shows the spinner: a task at work
// (a request still being sent has no spinner, a queued one its clock hand).
func spins(state string) bool {
	return inFlight(state) && state != api.StateQueueing && state != record.StateSubmitting
}

// nextMotion is how soon a row in state next moves by itself, zero when
// it does not.
func nextMotion(state string, offPeak bool, now time.Time) time.Duration {
	switch {
	case state == api.StateQueueing && offPeak:
		return 0
	case state == api.StateQueueing:
		return time.Second - time.Duration(now.Nanosecond())
	case inFlight(state):
		return spinnerStep
	}
	return 0
}

// columns is the task list's layout for one width. Every width shows the
// operation, the model and a subject; narrower terminals name operations by
// their short labels (opLabel), then fold the origin into the subject, then
// drop the expiry.
type columns struct {
	op, model, prompt, state, credits, age, origin, expiry int
	by                                                     int  // a team's sender (0: none)
	short                                                  bool // short operation labels
}

// modelWidth fits every model name of the catalog (svcq3-pro-fast).
const modelWidth = 14

// layoutColumns lays out the list at width; a team's list (team) names
// who sent each task where it has the room.
func layoutColumns(width int, team bool) columns {
	c := columns{op: 18, model: modelWidth, state: 15, credits: 6, age: 4, origin: 3, expiry: 8}
	if width < 120 {
		c = columns{op: 6, short: true, model: modelWidth, state: 14, credits: 4, age: 3, origin: 3, expiry: 7}
	}
	if width < 90 {
		c.origin = 0
	}
	if width < 70 {
		c.expiry = 0
	}
	// marker + glyph + spaces between columns
	fixed := 2 + 2 + c.op + c.model + c.state + c.credits + c.age + c.expiry + 6
	if c.origin > 0 {
		fixed += c.origin + 1
	}
	if team && width >= 120 {
		c.by = 10
		fixed += c.by + 1
	}
	c.prompt = max(width-fixed, 8)
	return c
}

func (c columns) header(th *Theme) string {
	var b strings.Builder
	b.WriteString("    ")
	op := "OPERATION"
	if c.short {
		op = "OP"
	}
	b.WriteString(textutil.Fit(op, c.op) + " ")
	b.WriteString(textutil.Fit("MODEL", c.model) + " ")
	b.WriteString(textutil.Fit("PROMPT OR SUBJECT", c.prompt) + " ")
	b.WriteString(textutil.Fit("STATE", c.state) + " ")
	b.WriteString(textutil.FitRight("CRED", c.credits) + " ")
	b.WriteString(textutil.FitRight("AGE", c.age))
	if c.origin > 0 {
		b.WriteString(" " + textutil.Fit("VIA", c.origin))
	}
	if c.by > 0 {
		b.WriteString(" " + textutil.Fit("BY", c.by))
	}
	if c.expiry > 0 {
		b.WriteString(" " + textutil.FitRight("URLS", c.expiry))
	}
	return th.Dim.Render(b.String())
}

// stateCell is the state with progress where known.
func stateCell(t record.Task) string {
	if t.NotSent() {
		return "not sent"
	}
	s := stateLabel(t.State)
	if t.Progress != nil && inFlight(t.State) {
		s += fmt.Sprintf(" %d%%", *t.Progress)
	}
	if t.ErrCode != "" && !inFlight(t.State) {
		s += " " + api.CleanLine(t.ErrCode)
	}
	return s
}

func stateStyle(th *Theme, state string) func(...string) string {
	switch {
	case state == "success":
		return th.Success.Render
	case state == "failed" || state == record.StateRejected:
		return th.Error.Render
	case state == unknownOutcome:
		return th.Warning.Render
	case inFlight(state):
		return th.Running.Render
	}
	return th.Dim.Render
}

// renderRow draws one task: plain padded text with a few styled cells, so a
// screenful costs well under a millisecond.
func renderRow(th *Theme, c columns, t record.Task, now time.Time, selected bool, frame int) string {
	return newRow(th, c, t, now, selected).at(now, frame)
}

// row is a task's row drawn but for its state glyph, the one cell that
// moves by itself: a spinner's turn puts the row together from its parts
// instead of drawing it again.
type row struct {
	head, tail string // before and after the glyph
	style      func(...string) string
	state      string
	offPeak    bool
}

// at is the whole row at now and the root's spinner frame.
func (r row) at(now time.Time, frame int) string {
	g, n := motion(r.state, r.offPeak, now, frame)
	if n < 0 {
		g = stillGlyph(r.state, r.offPeak)
	}
	return r.head + r.style(g) + r.tail
}

func newRow(th *Theme, c columns, t record.Task, now time.Time, selected bool) row {
	t.State = displayState(t, now)
	r := row{style: stateStyle(th, t.State), state: t.State, offPeak: t.OffPeak, head: " "}
	if selected {
		r.head = th.Marker.Render("▌")
	}
	r.head += " "
	var b strings.Builder
	b.WriteString(" ")
	op := string(t.Operation)
	if c.short {
		op = opLabel(t.Operation)
	}
	model := t.Model
	if model == "" {
		model = "—"
	}
	text := textutil.Fit(op, c.op) + " " + textutil.Fit(api.CleanLine(model), c.model) + " "
	subject := api.CleanLine(t.Prompt)
	// Without the origin column an agent's task still stands out, by a
	// word before its subject.
	tag := ""
	if c.origin == 0 && t.Origin == record.OriginMCP {
		tag = "mcp "
	}
	// A version of a set names it (s12: c opens its contact sheet), and
	// the one its sheet keeps has the sheet's star; a narrow subject keeps
	// the star alone.
	labels := ""
	if t.Keeper {
		labels = "★"
	}
	switch {
	case t.SetID != 0 && c.prompt >= 16:
		labels += fmt.Sprintf("s%d ", t.SetID)
	case labels != "":
		labels += " "
	}
	// The user's tags lead the subject, in at most a third of its room (all
	// the room left when there is no subject, as for a video made from a
	// first frame alone): an 80-column list shows them too.
	if len(t.Tags) > 0 && c.prompt >= 16 {
		room := c.prompt / 3
		if subject == "" {
			room = c.prompt - len(tag) - len(labels) - 1
		}
		labels += textutil.Truncate("#"+strings.Join(t.Tags, " #"), room) + " "
	}
	subject = textutil.Fit(subject, c.prompt-len(tag)-textutil.Width(labels)) + " "
	render := func(s string) string { return s }
	if selected {
		render = func(s string) string { return th.Selected.Render(s) }
	}
	b.WriteString(render(text))
	if tag != "" {
		b.WriteString(th.Warning.Render(tag))
	}
	if labels != "" {
		b.WriteString(th.Key.Render(labels))
	}
	b.WriteString(render(subject))
	b.WriteString(r.style(textutil.Fit(stateCell(t), c.state)) + " ")
	cr := ""
	if t.Credits > 0 {
		cr = fmt.Sprint(t.Credits)
	}
	b.WriteString(textutil.FitRight(cr, c.credits) + " ")
	b.WriteString(th.Dim.Render(textutil.FitRight(age(now, t.CreatedAt), c.age)))
	if c.origin > 0 {
		// An agent's task stands out: it was not started by the person
		// looking at the list.
		via := textutil.Fit(string(t.Origin), c.origin)
		if t.Origin == record.OriginMCP {
			b.WriteString(" " + th.Warning.Render(via))
		} else {
			b.WriteString(" " + th.Dim.Render(via))
		}
	}
	if c.by > 0 {
		// The user: the host and folder are in the detail and by: finds
		// them.
		user, _, _ := strings.Cut(t.SentBy, "@")
		b.WriteString(" " + th.Dim.Render(textutil.Fit(api.CleanLine(user), c.by)))
	}
	if c.expiry > 0 {
		exp := left(now, t.URLsExpireAt)
		cell := textutil.FitRight(exp, c.expiry)
		switch {
		case exp == "expired":
			cell = th.Dim.Render(cell)
		case !t.URLsExpireAt.IsZero() && t.URLsExpireAt.Sub(now) < time.Hour:
			cell = th.Warning.Render(cell)
		}
		b.WriteString(" " + cell)
	}
	r.tail = b.String()
	return r
}

// displayState is the state a row shows: a request still submitting that
// nobody is sending any more is of unknown outcome (studio.OutcomeUnknown,
// the rule every front end shares).
func displayState(t record.Task, now time.Time) string {
	if studio.OutcomeUnknown(t, now) {
		return unknownOutcome
	}
	return t.State
}

// rowCache keeps rendered rows by everything that shows in them but the
// moving glyph, and each row whole at each frame of its glyph once shown:
// a frame re-renders only rows that changed (a cursor move redraws two),
// and a spinner's turn only puts rows together.
type rowCache struct {
	theme *Theme
	rows  map[rowKey]*cachedRow
}

type rowKey struct {
	id        int64
	updated   int64
	state     string
	width     int
	selected  bool
	age, urls string
	progress  int64
	tags      string // tags change no time of the task
	set       int64
	keeper    bool // keeping a version changes no time of the task
	by        int  // the sender's column: a switch to or from a team's history
}

type cachedRow struct {
	row
	frames []string // the whole row by its glyph's frame + 1 (0: a still glyph)
}

func (c *rowCache) render(th *Theme, cols columns, width int, t record.Task, now time.Time, selected bool, frame int) string {
	k := rowKey{id: t.LocalID, updated: t.UpdatedAt.UnixMilli(), state: displayState(t, now), width: width,
		selected: selected, age: age(now, t.CreatedAt), urls: left(now, t.URLsExpireAt), progress: -1,
		tags: strings.Join(t.Tags, " "), set: t.SetID, keeper: t.Keeper, by: cols.by}
	if t.Progress != nil {
		k.progress = *t.Progress
	}
	if c.theme != th || len(c.rows) > 2000 {
		c.theme, c.rows = th, map[rowKey]*cachedRow{}
	}
	r := c.rows[k]
	if r == nil {
		r = &cachedRow{row: newRow(th, cols, t, now, selected)}
		c.rows[k] = r
	}
	_, n := motion(k.state, t.OffPeak, now, frame)
	i := n + 1
	if i >= len(r.frames) {
		r.frames = append(r.frames, make([]string, i+1-len(r.frames))...)
	}
	if r.frames[i] == "" {
		r.frames[i] = r.at(now, frame)
	}
	return r.frames[i]
}
