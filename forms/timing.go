package forms

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/api/catalog"
)

// The spec's Timing prompt: "prompt ... at most 1500 characters"; timing2audio
// duration "default 10".
const (
	timingPromptMax = 1500
	timingDuration  = 10.0
	timingFine      = 0.1
	timingCoarse    = 1.0
	newEventLength  = 2.0
)

// timingEditor edits timing2audio's timing_prompts: each event a bar in its
// own lane over the duration, so overlapping events stack visibly and the
// overlap itself is marked; the focused event's times and prompt below.
//
// Keys move an edge only within 0..duration (and from never past to);
// typing a number sets any value, which the editor marks when it lies past
// the duration rather than clamping it.
type timingEditor struct {
	field    catalog.Field
	events   []*timingEvent
	duration float64
	cur      int  // the focused event; len(events) is the "add event" row
	onPrompt bool // the prompt row of the focused event rather than its times
	edge     timingEdge
	typed    string // seconds being typed for the edge; "" when not typing
	before   timingEvent
	input    textinput.Model
	bound    string
	focused  bool
	undo     []timingUndo
	notice   string
	warn     bool
}

// timingEvent is one event as given. What is not a number or text where
// one belongs, and keys that are no event field, are kept as given.
type timingEvent struct {
	from, to       float64
	hasFrom, hasTo bool
	prompt         string
	extra          map[string]any
	raw            any
	isRaw          bool
}

type timingEdge int

const (
	edgeFrom timingEdge = iota
	edgeTo
	edgeBar
)

type timingUndo struct {
	ev *timingEvent
	at int
}

type timingKeyMap struct {
	Up, Down, Left, Right, Left1, Right1, Edge, Type, Enter, Add, Remove, Undo key.Binding
}

var timingKeys = timingKeyMap{
	Up:     key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "times · prompt")),
	Down:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next")),
	Left:   key.NewBinding(key.WithKeys("left"), key.WithHelp("←/→", "move 0.1 s")),
	Right:  key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "move 0.1 s")),
	Left1:  key.NewBinding(key.WithKeys("shift+left"), key.WithHelp("shift+←/→", "move 1 s")),
	Right1: key.NewBinding(key.WithKeys("shift+right"), key.WithHelp("shift+→", "move 1 s")),
	Edge:   key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "from/to/whole bar")),
	Type:   key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "."), key.WithHelp("0-9", "type seconds")),
	Enter:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next")),
	Add:    key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "add event")),
	Remove: key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "remove event")),
	Undo:   key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo remove")),
}

// newTimingEditor takes the Context every editor is given; the timeline
// reads nothing from it.
func newTimingEditor(_ *Context, f catalog.Field) *timingEditor {
	in := textinput.New()
	in.Prompt = ""
	return &timingEditor{field: f, input: in, duration: timingDuration}
}

// SetDuration is the length the bars are drawn over; events past it stay
// where they are, marked.
func (e *timingEditor) SetDuration(seconds float64) {
	if !(seconds > 0) || math.IsInf(seconds, 0) {
		seconds = timingDuration
	}
	e.duration = seconds
}

func (e *timingEditor) SetField(f catalog.Field) { e.field = f }

func (e *timingEditor) Focus() tea.Cmd {
	e.focused = true
	e.bind()
	return e.input.Focus()
}

func (e *timingEditor) Blur() {
	e.focused = false
	e.commitTyped()
	e.input.Blur()
}

func (e *timingEditor) Value() any {
	if len(e.events) == 0 {
		return nil
	}
	out := make([]any, len(e.events))
	for i, ev := range e.events {
		out[i] = ev.value()
	}
	return out
}

func (ev *timingEvent) value() any {
	if ev.isRaw {
		return ev.raw
	}
	m := make(map[string]any, 3+len(ev.extra))
	for k, v := range ev.extra {
		m[k] = v
	}
	if ev.hasFrom {
		m["from"] = ev.from
	}
	if ev.hasTo {
		m["to"] = ev.to
	}
	if _, kept := ev.extra["prompt"]; !kept {
		m["prompt"] = ev.prompt
	}
	return m
}

// Set takes events as decoded from JSON (numbers as float64 or json.Number).
func (e *timingEditor) Set(v any) {
	e.events, e.undo, e.notice, e.typed = nil, nil, "", ""
	items, ok := v.([]any)
	if !ok && v != nil {
		items = []any{v}
	}
	for _, it := range items {
		e.events = append(e.events, parseEvent(it))
	}
	e.cur, e.onPrompt, e.edge = 0, false, edgeFrom
	e.bind()
}

func parseEvent(it any) *timingEvent {
	obj, ok := it.(map[string]any)
	if !ok {
		return &timingEvent{raw: it, isRaw: true}
	}
	ev := &timingEvent{}
	keep := func(k string, v any) {
		if ev.extra == nil {
			ev.extra = map[string]any{}
		}
		ev.extra[k] = v
	}
	for k, v := range obj {
		switch k {
		case "from", "to":
			n, ok := seconds(v)
			switch {
			case v == nil:
			case !ok:
				keep(k, v)
			case k == "from":
				ev.from, ev.hasFrom = n, true
			default:
				ev.to, ev.hasTo = n, true
			}
		case "prompt":
			if s, ok := v.(string); ok {
				ev.prompt = s
			} else if v != nil {
				keep(k, v)
			}
		default:
			keep(k, v)
		}
	}
	return ev
}

// seconds reads a JSON number in any of the forms a decoder gives it.
func seconds(v any) (float64, bool) {
	var n float64
	switch x := v.(type) {
	case float64:
		n = x
	case float32:
		n = float64(x)
	case int:
		n = float64(x)
	case int64:
		n = float64(x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return 0, false
		}
		n = f
	default:
		return 0, false
	}
	return n, !math.IsNaN(n) && !math.IsInf(n, 0)
}

// roundTime keeps key steps exact: 0.1 added ten times is 1, not 0.9999….
func roundTime(x float64) float64 { return math.Round(x*1000) / 1000 }

func formatTime(x float64) string { return strconv.FormatFloat(roundTime(x), 'f', -1, 64) }

func (e *timingEditor) current() (*timingEvent, bool) {
	if e.cur >= len(e.events) {
		return nil, false
	}
	return e.events[e.cur], true
}

func (e *timingEditor) onTimes() bool {
	ev, ok := e.current()
	return ok && !ev.isRaw && !e.onPrompt
}

// bind loads the focused event's prompt into the input.
func (e *timingEditor) bind() {
	t := ""
	if ev, ok := e.current(); ok && !ev.isRaw {
		t = ev.prompt
	}
	e.input.SetValue(t)
	e.input.CursorEnd()
	e.bound = e.input.Value()
}

func (e *timingEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	if !isKey {
		return e.typeIn(msg)
	}
	e.notice, e.warn = "", false
	onAdd := e.cur == len(e.events)
	if e.onTimes() {
		if changed, handled := e.timeKey(k); handled {
			return nil, changed
		}
	}
	e.commitTyped()
	switch {
	case key.Matches(k, timingKeys.Up):
		e.move(-1)
	case key.Matches(k, timingKeys.Down):
		e.move(1)
	case key.Matches(k, timingKeys.Add), onAdd && key.Matches(k, timingKeys.Enter):
		return nil, e.add()
	case key.Matches(k, timingKeys.Enter):
		e.move(1)
	case key.Matches(k, timingKeys.Remove):
		return nil, e.remove()
	case key.Matches(k, timingKeys.Undo):
		return nil, e.restore()
	default:
		if e.cur < len(e.events) && e.onPrompt {
			return e.typeIn(msg)
		}
		if e.onTimes() && k.Text != "" {
			e.notice, e.warn = "times take seconds (0-9 and .); ↓ goes to the prompt", true
		}
	}
	return nil, false
}

// timeKey handles the keys of the times row: moving an edge or the bar,
// switching edge, typing seconds.
func (e *timingEditor) timeKey(k tea.KeyPressMsg) (changed, handled bool) {
	switch {
	case key.Matches(k, timingKeys.Left):
		e.commitTyped()
		return e.shift(-timingFine), true
	case key.Matches(k, timingKeys.Right):
		e.commitTyped()
		return e.shift(timingFine), true
	case key.Matches(k, timingKeys.Left1):
		e.commitTyped()
		return e.shift(-timingCoarse), true
	case key.Matches(k, timingKeys.Right1):
		e.commitTyped()
		return e.shift(timingCoarse), true
	case key.Matches(k, timingKeys.Edge):
		e.commitTyped()
		e.edge = (e.edge + 1) % 3
		return false, true
	case key.Matches(k, timingKeys.Type):
		if e.typed == "" {
			e.before = *e.events[e.cur]
		}
		if k.Text == "." && strings.Contains(e.typed, ".") {
			return false, true
		}
		e.typed += k.Text
		return e.applyTyped(), true
	case k.String() == "backspace":
		if e.typed == "" {
			e.before = *e.events[e.cur]
			e.typed = e.edgeText()
		}
		_, size := utf8.DecodeLastRuneInString(e.typed)
		e.typed = e.typed[:len(e.typed)-size]
		return e.applyTyped(), true
	}
	return false, false
}

// edgeText is the focused edge's value as typed so far.
func (e *timingEditor) edgeText() string {
	ev := e.events[e.cur]
	if e.edge == edgeTo {
		if ev.hasTo {
			return formatTime(ev.to)
		}
		return ""
	}
	if ev.hasFrom {
		return formatTime(ev.from)
	}
	return ""
}

// applyTyped sets the edge to the seconds typed so far, or back to what it
// was while the text is no number yet (empty, a lone dot). Typing a whole
// bar's start moves the bar and keeps its length.
func (e *timingEditor) applyTyped() bool {
	ev := e.events[e.cur]
	old := *ev
	*ev = e.before
	if n, err := strconv.ParseFloat(e.typed, 64); err == nil {
		switch e.edge {
		case edgeFrom:
			ev.from, ev.hasFrom = n, true
		case edgeTo:
			ev.to, ev.hasTo = n, true
		case edgeBar:
			if ev.hasFrom && ev.hasTo {
				ev.to = roundTime(ev.to + n - ev.from)
			}
			ev.from, ev.hasFrom = n, true
		}
	}
	return ev.from != old.from || ev.to != old.to || ev.hasFrom != old.hasFrom || ev.hasTo != old.hasTo
}

func (e *timingEditor) commitTyped() { e.typed = "" }

// shift moves the focused edge, or the whole bar, by d seconds. Keys stop
// at 0, at the duration and where from meets to; each stop is said.
func (e *timingEditor) shift(d float64) bool {
	ev := e.events[e.cur]
	if !ev.hasFrom {
		ev.from, ev.hasFrom = 0, true
	}
	if !ev.hasTo {
		ev.to, ev.hasTo = ev.from, true
	}
	stop := func(msg string) bool {
		e.notice, e.warn = msg, true
		return false
	}
	dur := e.duration
	switch e.edge {
	case edgeFrom:
		hi := min(ev.to, dur)
		n := roundTime(min(max(ev.from+d, 0), hi))
		if d > 0 && ev.from >= hi {
			return stop("from stops at " + e.limitName(hi, ev.to))
		}
		if d < 0 && ev.from <= 0 {
			return stop("from stops at 0 s")
		}
		ev.from = n
	case edgeTo:
		lo := max(ev.from, 0)
		n := roundTime(min(max(ev.to+d, lo), max(dur, lo)))
		if d > 0 && ev.to >= dur {
			return stop(fmt.Sprintf("to stops at the duration (%s s); type a number to go past it", formatTime(dur)))
		}
		if d < 0 && ev.to <= lo {
			return stop("to stops at from")
		}
		ev.to = n
	case edgeBar:
		lo, hi := min(ev.from, ev.to), max(ev.from, ev.to)
		switch {
		case d > 0 && hi >= dur:
			return stop(fmt.Sprintf("the bar stops at the duration (%s s)", formatTime(dur)))
		case d < 0 && lo <= 0:
			return stop("the bar stops at 0 s")
		case d > 0:
			d = min(d, dur-hi)
		default:
			d = max(d, -lo)
		}
		ev.from, ev.to = roundTime(ev.from+d), roundTime(ev.to+d)
	}
	return true
}

func (e *timingEditor) limitName(hi, to float64) string {
	if hi == to {
		return "to (" + formatTime(to) + " s)"
	}
	return fmt.Sprintf("the duration (%s s)", formatTime(hi))
}

// typeIn hands a key or a paste to the prompt input.
func (e *timingEditor) typeIn(msg tea.Msg) (tea.Cmd, bool) {
	ev, ok := e.current()
	if !ok || ev.isRaw || !e.onPrompt {
		return nil, false
	}
	var cmd tea.Cmd
	e.input, cmd = e.input.Update(msg)
	v := e.input.Value()
	if v == e.bound {
		return cmd, false
	}
	e.bound = v
	ev.prompt = v
	delete(ev.extra, "prompt")
	return cmd, true
}

// rows of an event: its times and its prompt (one row for an item that is
// no event).
func (e *timingEditor) rows(i int) int {
	if i < len(e.events) && e.events[i].isRaw {
		return 1
	}
	return 2
}

func (e *timingEditor) canMove(by int) bool {
	if by < 0 {
		return e.cur > 0 || e.onPrompt
	}
	return e.cur < len(e.events)
}

func (e *timingEditor) move(by int) {
	if !e.canMove(by) {
		return
	}
	row := 0
	if e.onPrompt {
		row = 1
	}
	switch r := row + by; {
	case e.cur < len(e.events) && r >= 0 && r < e.rows(e.cur):
		e.onPrompt = r == 1
		return
	case by > 0:
		e.cur, e.onPrompt = e.cur+1, false
	default:
		e.cur--
		e.onPrompt = e.rows(e.cur) == 2
	}
	e.bind()
}

// add puts a new event after the focused one's end (or at 0) and opens
// its prompt: what the sound is comes next.
func (e *timingEditor) add() bool {
	if m := e.field.MaxItems; m > 0 && len(e.events) >= m {
		e.notice, e.warn = fmt.Sprintf("at most %d events", m), true
		return false
	}
	start := 0.0
	if ev, ok := e.current(); ok && ev.hasTo && ev.to < e.duration {
		start = ev.to
	} else if n := len(e.events); n > 0 && e.events[n-1].hasTo && e.events[n-1].to < e.duration {
		start = e.events[n-1].to
	}
	end := roundTime(min(start+newEventLength, e.duration))
	e.events = append(e.events, &timingEvent{from: start, to: end, hasFrom: true, hasTo: true})
	e.cur, e.onPrompt, e.edge = len(e.events)-1, true, edgeFrom
	e.bind()
	return true
}

// remove takes the focused event out at once and says how to bring it back.
func (e *timingEditor) remove() bool {
	ev, ok := e.current()
	if !ok {
		return false
	}
	e.undo = append(e.undo, timingUndo{ev: ev, at: e.cur})
	e.events = slices.Delete(e.events, e.cur, e.cur+1)
	e.onPrompt = false
	e.notice = fmt.Sprintf("removed event %d %s · ctrl+z brings it back", e.cur+1, ev.title())
	e.bind()
	return true
}

func (e *timingEditor) restore() bool {
	if len(e.undo) == 0 {
		return false
	}
	u := e.undo[len(e.undo)-1]
	e.undo = e.undo[:len(e.undo)-1]
	at := min(u.at, len(e.events))
	e.events = slices.Insert(e.events, at, u.ev)
	e.cur, e.onPrompt = at, false
	e.notice = "brought back " + u.ev.title()
	e.bind()
	return true
}

func (ev *timingEvent) title() string {
	if ev.isRaw || strings.TrimSpace(ev.prompt) == "" {
		return "(no prompt)"
	}
	return "“" + ansi.Truncate(api.CleanLine(ev.prompt), 30, "…") + "”"
}

// OwnsKey claims up and down while they move inside the list, enter, and
// the times row's keys; never the form's own (tab, shift+tab, ctrl+s, esc).
func (e *timingEditor) OwnsKey(k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, timingKeys.Up):
		return e.canMove(-1)
	case key.Matches(k, timingKeys.Down):
		return e.canMove(1)
	case key.Matches(k, timingKeys.Enter):
		return true
	case key.Matches(k, timingKeys.Left, timingKeys.Right, timingKeys.Left1, timingKeys.Right1, timingKeys.Edge):
		return e.onTimes()
	}
	return false
}

func (e *timingEditor) Counter() string { return fmt.Sprintf("events %d", len(e.events)) }

// Keys lists only what works on the focused row.
func (e *timingEditor) Keys() []key.Binding {
	ks := []key.Binding{timingKeys.Up}
	if e.onTimes() {
		ks = append(ks, timingKeys.Left, timingKeys.Left1, timingKeys.Edge, timingKeys.Type)
	}
	if m := e.field.MaxItems; m == 0 || len(e.events) < m {
		ks = append(ks, timingKeys.Add)
	}
	if e.cur < len(e.events) {
		ks = append(ks, timingKeys.Remove)
	}
	if len(e.undo) > 0 {
		ks = append(ks, timingKeys.Undo)
	}
	return ks
}
