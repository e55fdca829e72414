package forms

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// span is an event's interval as drawn: from and to in order.
func (ev *timingEvent) span() (lo, hi float64, ok bool) {
	if ev.isRaw || !ev.hasFrom || !ev.hasTo {
		return 0, 0, false
	}
	return min(ev.from, ev.to), max(ev.from, ev.to), true
}

// problem is what the catalog will refuse about an event's times, shown
// beside its bar (timingWithinDuration's rule).
func (e *timingEditor) problem(ev *timingEvent) string {
	switch {
	case ev.isRaw:
		return "not an event"
	case !ev.hasFrom || !ev.hasTo:
		return "needs from and to"
	case ev.from > e.duration || ev.to > e.duration:
		return "past " + formatTime(e.duration) + " s"
	case ev.from > ev.to:
		return "from after to"
	}
	return ""
}

// sounds is the stretch an event sounds: none when it ends before it starts.
func (ev *timingEvent) sounds() (lo, hi float64, ok bool) {
	lo, hi, ok = ev.span()
	return lo, hi, ok && ev.from <= ev.to
}

// overlaps are the stretches where two or more events sound at once,
// merged and in order.
func (e *timingEditor) overlaps() [][2]float64 {
	var out [][2]float64
	for i, a := range e.events {
		alo, ahi, ok := a.sounds()
		if !ok {
			continue
		}
		for _, b := range e.events[i+1:] {
			blo, bhi, ok := b.sounds()
			if !ok {
				continue
			}
			if lo, hi := max(alo, blo), min(ahi, bhi); hi > lo {
				out = append(out, [2]float64{lo, hi})
			}
		}
	}
	slices.SortFunc(out, func(a, b [2]float64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	merged := out[:0]
	for _, o := range out {
		if n := len(merged); n > 0 && o[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], o[1])
			continue
		}
		merged = append(merged, o)
	}
	return merged
}

type cellKind int

const (
	cellTrack cellKind = iota
	cellTrackPast
	cellFill
	cellOverlap
	cellPast
)

var cellGlyphs = [...]string{cellTrack: "─", cellTrackPast: "┄", cellFill: "█", cellOverlap: "▓", cellPast: "▒"}

func (c cellKind) style(s *Styles) *lipgloss.Style {
	switch c {
	case cellTrackPast:
		return &s.Dim
	case cellFill:
		return &s.Fill
	case cellOverlap:
		return &s.Overlap
	case cellPast:
		return &s.Error
	}
	return &s.Track
}

// timeline maps seconds to cells: scale seconds over w cells, the scale
// reaching past the duration when an event does.
type timeline struct {
	w          int
	scale, dur float64
}

func (t timeline) cell(x float64) int {
	return min(max(int(math.Floor(x*float64(t.w)/t.scale)), 0), t.w-1)
}

// cells is the range of cells [a, b] a stretch covers; at least one.
func (t timeline) cells(lo, hi float64) (int, int) {
	a := t.cell(lo)
	b := min(int(math.Ceil(hi*float64(t.w)/t.scale))-1, t.w-1)
	return a, max(a, b)
}

// past reports whether a cell starts at or after the duration.
func (t timeline) past(c int) bool { return float64(c)*t.scale/float64(t.w) >= t.dur-1e-9 }

// lane draws one event's bar; the cells where another event sounds too are
// drawn as overlap, those past the duration as errors.
func (e *timingEditor) lane(s *Styles, t timeline, i int, ov [][2]float64) string {
	cells := make([]cellKind, t.w)
	for c := range cells {
		if t.past(c) {
			cells[c] = cellTrackPast
		}
	}
	if lo, hi, ok := e.events[i].span(); ok {
		a, b := t.cells(lo, hi)
		for c := a; c <= b; c++ {
			cells[c] = cellFill
		}
		for _, o := range ov {
			if olo, ohi := max(o[0], lo), min(o[1], hi); ohi > olo {
				oa, ob := t.cells(olo, ohi)
				for c := oa; c <= ob; c++ {
					cells[c] = cellOverlap
				}
			}
		}
		for c := a; c <= b; c++ {
			if t.past(c) || e.events[i].from > e.events[i].to {
				cells[c] = cellPast
			}
		}
	}
	var b strings.Builder
	for c := 0; c < len(cells); {
		end := c
		for end < len(cells) && cells[end] == cells[c] {
			end++
		}
		b.WriteString(cells[c].style(s).Render(strings.Repeat(cellGlyphs[cells[c]], end-c)))
		c = end
	}
	return b.String()
}

// axis labels whole seconds at a step that leaves room between labels.
func (t timeline) axis() string {
	step := 60.0
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60} {
		if s*float64(t.w)/t.scale >= 4 {
			step = s
			break
		}
	}
	row := []rune(strings.Repeat(" ", t.w))
	next := 0
	for x := 0.0; x <= t.scale+1e-9; x += step {
		label := []rune(formatTime(x))
		c := int(math.Round(x * float64(t.w) / t.scale))
		c = min(c, t.w-len(label))
		if c < next || c < 0 {
			continue
		}
		copy(row[c:], label)
		next = c + len(label) + 1
	}
	return string(row)
}

const timingPrefix = 5 // "▸ 12 " before each lane

// View draws the axis, one lane per event, the overlap marks and, focused,
// the focused event's times and prompt, the add row and the last notice.
func (e *timingEditor) View(s *Styles, width int, focused bool) string {
	if width <= 0 {
		return ""
	}
	var b strings.Builder
	line := func(l string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ansi.Truncate(l, width, "…"))
	}
	if len(e.events) == 0 && !focused {
		line(s.Dim.Render("no events"))
		return b.String()
	}
	infoW := max(16, width*3/10)
	w := width - timingPrefix - 1 - infoW
	if w < 10 {
		w, infoW = max(width-timingPrefix-1, 4), 0
	}
	t := timeline{w: w, dur: e.duration, scale: e.duration}
	for _, ev := range e.events {
		if lo, hi, ok := ev.span(); ok {
			t.scale = max(t.scale, hi, lo)
		}
	}
	info := func(text string) string {
		if infoW == 0 {
			return ""
		}
		return " " + text
	}
	dur := s.Dim.Render("s · duration ") + s.Value.Render(formatTime(e.duration))
	line(strings.Repeat(" ", timingPrefix) + s.Dim.Render(t.axis()) + info(dur))
	ov := e.overlaps()
	for i, ev := range e.events {
		on := focused && i == e.cur
		mark := "  "
		num := s.Dim.Render(fmt.Sprintf("%2d ", i+1))
		if on {
			mark, num = s.Focused.Render("▸ "), s.Selected.Render(fmt.Sprintf("%2d", i+1))+" "
		}
		line(mark + num + e.lane(s, t, i, ov) + info(e.laneInfo(s, ev, infoW-1)))
	}
	if len(ov) > 0 {
		marks := []rune(strings.Repeat(" ", t.w))
		var texts []string
		for _, o := range ov {
			a, z := t.cells(o[0], o[1])
			for c := a; c <= z; c++ {
				marks[c] = '▲'
			}
			texts = append(texts, formatTime(o[0])+"–"+formatTime(o[1]))
		}
		line(strings.Repeat(" ", timingPrefix) + s.Overlap.Render(string(marks)) +
			info(s.Overlap.Render("overlap ")+s.Dim.Render(strings.Join(texts, ", ")+" s")))
	}
	if !focused {
		return b.String()
	}
	if ev, ok := e.current(); ok {
		line(e.timesRow(s, ev))
		if !ev.isRaw {
			line(e.promptRow(s, ev, width))
		}
	}
	add := s.Dim.Render("  + add event ")
	if e.cur == len(e.events) {
		add = s.Focused.Render("▸ + add event ")
	}
	line(add + s.Key.Render("ctrl+n"))
	if e.notice != "" {
		st := s.OK
		if e.warn {
			st = s.Warning
		}
		line("  " + st.Render(e.notice))
	}
	return b.String()
}

// laneInfo is the text beside a bar: its times, then its problem or prompt.
func (e *timingEditor) laneInfo(s *Styles, ev *timingEvent, w int) string {
	if ev.isRaw {
		return s.Error.Render(ansi.Truncate("✗ not an event: "+api.CleanLine(catalog.FormatValue(ev.raw)), w, "…"))
	}
	times := e.timesText(ev, false)
	out := s.Value.Render(times)
	rest := w - ansi.StringWidth(times) - 1
	switch p := e.problem(ev); {
	case p != "":
		out += " " + s.Error.Render(ansi.Truncate("✗ "+p, max(rest, 0), "…"))
	case ev.prompt == "":
		out += " " + s.Dim.Render(ansi.Truncate("(no prompt)", max(rest, 0), "…"))
	default:
		out += " " + s.Value.Render(ansi.Truncate(api.CleanLine(ev.prompt), max(rest, 0), "…"))
	}
	if len(ev.extra) > 0 {
		out += s.Error.Render(" ✗ kept")
	}
	return out
}

// timesText is "from–to s"; marked, the focused edge (or the whole bar)
// is bracketed and shows the seconds being typed.
func (e *timingEditor) timesText(ev *timingEvent, marked bool) string {
	val := func(has bool, x float64, edge timingEdge) string {
		v := "?"
		if has {
			v = formatTime(x)
		}
		if marked && e.typed != "" && (e.edge == edge || e.edge == edgeBar && edge == edgeFrom) {
			v = e.typed + "▏"
		}
		return v
	}
	from, to := val(ev.hasFrom, ev.from, edgeFrom), val(ev.hasTo, ev.to, edgeTo)
	if marked {
		switch e.edge {
		case edgeFrom:
			from = "[" + from + "]"
		case edgeTo:
			to = "[" + to + "]"
		case edgeBar:
			return "[" + from + "–" + to + "] s"
		}
	}
	return from + "–" + to + " s"
}

// timesRow is the focused event's times, with its length and what is wrong.
func (e *timingEditor) timesRow(s *Styles, ev *timingEvent) string {
	on := !e.onPrompt
	mark, label := "    ", s.Label
	if on {
		mark, label = "  "+s.Focused.Render("› "), s.Focused
	}
	head := mark + label.Render(textutil.Fit("times", 8))
	if ev.isRaw {
		return head + s.Error.Render(api.CleanLine(catalog.FormatValue(ev.raw))) + s.Dim.Render("  not an event; kept as given")
	}
	text := s.Value.Render(e.timesText(ev, on))
	if on {
		text = s.Selected.Render(e.timesText(ev, true))
	}
	if ev.hasFrom && ev.hasTo && ev.to >= ev.from {
		text += s.Dim.Render(" · " + formatTime(ev.to-ev.from) + " s long")
	}
	if p := e.problem(ev); p != "" {
		text += " " + s.Error.Render("✗ "+p)
	}
	for _, k := range sortedKeys(ev.extra) {
		text += " " + s.Error.Render("✗ "+api.CleanLine(k)+"="+api.CleanLine(catalog.FormatValue(ev.extra[k]))+" kept")
	}
	return head + text
}

// promptRow is the focused event's prompt with its live limit.
func (e *timingEditor) promptRow(s *Styles, ev *timingEvent, width int) string {
	on := e.onPrompt
	mark, label := "    ", s.Label
	if on {
		mark, label = "  "+s.Focused.Render("› "), s.Focused
	}
	head := mark + label.Render(textutil.Fit("prompt", 8))
	n := utf8.RuneCountInString(ev.prompt)
	cst := s.Dim
	if n > timingPromptMax {
		cst = s.Error
	}
	count := cst.Render(fmt.Sprintf("prompt %d/%d", n, timingPromptMax))
	room := max(width-lipgloss.Width(head)-lipgloss.Width(count)-2, 4)
	var body string
	switch {
	case on:
		in := e.input
		in.SetStyles(inputStyles(s))
		in.SetWidth(room)
		in.Placeholder = "the sound, e.g. a door slams"
		body = in.View()
	case ev.prompt == "":
		body = s.Dim.Render("(no prompt)")
	default:
		body = s.Value.Render(ansi.Truncate(api.CleanLine(ev.prompt), room, "…"))
	}
	gap := max(width-lipgloss.Width(head)-lipgloss.Width(body)-lipgloss.Width(count), 1)
	return head + body + strings.Repeat(" ", gap) + count
}
