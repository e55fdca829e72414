package ui

import (
	"fmt"
	"strings"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/studio"
	"clapper/ui/preview"
)

// The grid: cells of the thumbnail's width plus a border, one column apart.
const (
	sheetGap = 1
	// sheetChrome is the title, the blank line under it and the note line.
	sheetChrome = 3
)

// thumbLines lays a decoded picture out as exactly thumbH lines of thumbW
// cells, centred: built once in the command that decoded it, so drawing a
// sheet only copies strings.
func thumbLines(c *preview.Cells, thumbW, thumbH int) []string {
	rows := strings.Split(c.HalfBlock(), "\n")
	left := max((thumbW-c.Cols)/2, 0)
	right := max(thumbW-c.Cols-left, 0)
	above := max((thumbH-len(rows))/2, 0)
	blank := strings.Repeat(" ", thumbW)
	out := make([]string, 0, thumbH)
	for range above {
		out = append(out, blank)
	}
	for _, r := range rows {
		if len(out) == thumbH {
			break
		}
		out = append(out, strings.Repeat(" ", left)+r+strings.Repeat(" ", right))
	}
	for len(out) < thumbH {
		out = append(out, blank)
	}
	return out
}

// perRow is how many cells fit side by side.
func (c *contactSheet) perRow() int {
	return max((c.width+sheetGap)/(c.tw+2+sheetGap), 1)
}

// cellH is a cell's height: its border, thumbnail and text.
func (c *contactSheet) cellH() int { return c.th + cellTextLines + 2 }

// rowsShown is how many rows of cells fit under the title.
func (c *contactSheet) rowsShown() int {
	return max((c.height-sheetChrome)/c.cellH(), 1)
}

// scrollToCursor keeps the cursor's row on screen.
func (c *contactSheet) scrollToCursor() {
	row := c.cursor / c.perRow()
	shown := c.rowsShown()
	switch {
	case row < c.top:
		c.top = row
	case row >= c.top+shown:
		c.top = row - shown + 1
	}
}

func (c *contactSheet) View() string {
	th := c.env.theme
	if !c.loaded {
		if c.problem != "" {
			return " " + th.Error.Render(c.problem)
		}
		return " " + th.Dim.Render("reading the set…")
	}
	var b strings.Builder
	b.WriteString(c.titleLine() + "\n\n")
	if len(c.cells) == 0 {
		b.WriteString(" " + th.Dim.Render("Every version of this set was discarded; its tasks are still in the Tasks list."))
		return b.String()
	}
	per, shown := c.perRow(), c.rowsShown()
	total := (len(c.cells) + per - 1) / per
	lines := make([]string, c.cellH())
	for row := c.top; row < min(c.top+shown, total); row++ {
		for i := range lines {
			lines[i] = ""
		}
		for col := range per {
			i := row*per + col
			if i >= len(c.cells) {
				break
			}
			for j, l := range c.cellLines(i) {
				if col > 0 {
					lines[j] += " "
				}
				lines[j] += l
			}
		}
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	foot := ""
	if c.activity.Note != "" {
		foot = th.Dim.Render(api.CleanLine(c.activity.Note))
	}
	if more := total - c.top - shown; more > 0 {
		foot = textutil.JoinEnds(foot, th.Dim.Render(fmt.Sprintf("↓ %s more", textutil.Plural(more, "row"))), c.width-1)
	} else if c.top > 0 {
		foot = textutil.JoinEnds(foot, th.Dim.Render("↑ more above"), c.width-1)
	}
	b.WriteString(foot)
	return b.String()
}

// titleLine names the set and counts its cells by state.
func (c *contactSheet) titleLine() string {
	th := c.env.theme
	kind := "variations"
	if c.info.Kind == "batch" {
		kind = "batch"
	}
	left := th.Title.Render(fmt.Sprintf(" Set %d", c.info.ID)) + th.Dim.Render(" · "+kind+" · ") + th.Strong.Render(api.CleanLine(c.info.Name))
	var done, running, waiting, failed, unsent int
	for _, cell := range c.cells {
		switch {
		case cell.task == nil && cell.waiting:
			waiting++
		case cell.task == nil:
			unsent++
		case cell.task.State == api.StateSuccess:
			done++
		case inFlight(cell.task.State):
			running++
		default:
			failed++
		}
	}
	parts := []string{th.Success.Render(fmt.Sprintf("%d done", done))}
	if running > 0 {
		parts = append(parts, th.Running.Render(fmt.Sprintf("%d at the service", running)))
	}
	if waiting > 0 {
		parts = append(parts, th.Warning.Render(fmt.Sprintf("%d waiting (ours)", waiting)))
	}
	if failed > 0 {
		parts = append(parts, th.Error.Render(fmt.Sprintf("%d failed", failed)))
	}
	if unsent > 0 {
		parts = append(parts, th.Dim.Render(fmt.Sprintf("%d not sent", unsent)))
	}
	if n := len(c.discarded); n > 0 {
		// Counted apart, so that "2 done" of a set of four reads whole.
		parts = append(parts, th.Dim.Render(fmt.Sprintf("%d discarded", n)))
	}
	if c.info.Keeper != 0 {
		parts = append(parts, th.Marker.Render(fmt.Sprintf("★ %d", c.info.Keeper)))
	}
	return textutil.JoinEnds(left, strings.Join(parts, th.Dim.Render(" · ")), c.width-1)
}

// cellLines draws cell i: a border (the accent on the cursor), the
// picture or what stands for it, then state, seed and value.
func (c *contactSheet) cellLines(i int) []string {
	th := c.env.theme
	cell := c.cells[i]
	// The cursor's cell has a heavy border in the accent: a shape as well
	// as a colour, so it shows without colours too (NO_COLOR).
	edge, b := th.Faint, lightBox
	if i == c.cursor {
		edge, b = th.Marker, heavyBox
	}
	bar := edge.Render(b.side)
	thumbW := c.tw
	out := make([]string, 0, c.cellH())
	top := b.topLeft + strings.Repeat(b.line, thumbW) + b.topRight
	if c.info.Keeper == cell.line {
		top = b.topLeft + b.line + " ★ keeper " + strings.Repeat(b.line, thumbW-11) + b.topRight
	}
	out = append(out, edge.Render(top))
	for _, l := range c.picture(cell) {
		out = append(out, bar+l+bar)
	}
	for _, l := range []string{c.stateText(cell), c.seedText(cell), th.Strong.Render(textutil.Fit(sheetValue(cell), thumbW-1))} {
		out = append(out, bar+" "+l+bar) // text one cell in from the border
	}
	return append(out, edge.Render(b.bottomLeft+strings.Repeat(b.line, thumbW)+b.bottomRight))
}

// cellBox is the border of a cell.
type cellBox struct{ topLeft, topRight, bottomLeft, bottomRight, line, side string }

var (
	lightBox = cellBox{"╭", "╮", "╰", "╯", "─", "│"}
	heavyBox = cellBox{"┏", "┓", "┗", "┛", "━", "┃"}
)

// picture is the cell's thumbnail, or a line saying why there is none.
func (c *contactSheet) picture(cell sheetCell) []string {
	th := c.env.theme
	thumbW, thumbH := c.tw, c.th
	t := cell.task
	if t != nil {
		if lines := c.thumbs[t.LocalID]; lines != nil {
			return lines
		}
	}
	say := ""
	switch {
	case t == nil && cell.waiting:
		say = "waiting for room"
	case t == nil:
		say = "never sent"
	case t.State == api.StateSuccess && studio.MediaOf(t.Operation) == "audio":
		// What o does, as it will (the detail's note says as much).
		switch {
		case cell.saved == "":
			say = "♪ audio: d saves it"
		case !studio.OpensKind(cell.saved):
			say = "♪ audio: not opened"
		default:
			say = "♪ audio: o plays it"
		}
	case t.State == api.StateSuccess && len(t.Creations) == 0:
		say = "no result"
	case t.State == api.StateSuccess:
		say = c.thumbNote[t.LocalID]
	case inFlight(t.State):
		say = "…"
	case t.ErrCode != "":
		say = "no result: " + api.CleanLine(t.ErrCode)
	default:
		say = "no result"
	}
	blank := strings.Repeat(" ", thumbW)
	out := make([]string, thumbH)
	for i := range out {
		out[i] = blank
	}
	out[thumbH/2] = th.Dim.Render(textutil.Fit(centre(say, thumbW), thumbW))
	return out
}

func centre(s string, w int) string {
	pad := (w - textutil.Width(s)) / 2
	if pad <= 0 {
		return s
	}
	return strings.Repeat(" ", pad) + s
}

// stateText is the cell's state line: a spinner and progress while it
// runs, waiting (ours) while it waits on our side.
func (c *contactSheet) stateText(cell sheetCell) string {
	th := c.env.theme
	thumbW := c.tw - 1
	t := cell.task
	switch {
	case t == nil && cell.waiting:
		return th.Warning.Render(textutil.Fit(spinnerFrames[c.env.frame%len(spinnerFrames)]+" waiting (ours)", thumbW))
	case t == nil:
		return th.Dim.Render(textutil.Fit("– not sent", thumbW))
	}
	g := glyph(t.State)
	if inFlight(t.State) && t.State != "submitting" {
		g = spinnerFrames[c.env.frame%len(spinnerFrames)]
	}
	text := g + " " + stateLabel(t.State)
	if t.Progress != nil && inFlight(t.State) {
		text += fmt.Sprintf(" %d%%", *t.Progress)
	}
	return stateStyle(th, t.State)(textutil.Fit(text, thumbW))
}

func (c *contactSheet) seedText(cell sheetCell) string {
	th := c.env.theme
	thumbW := c.tw - 1
	switch {
	case cell.seed == "" && cell.label == "":
		// A batch's lines may be of several operations, and seldom
		// carry a seed: the line names its operation.
		return th.Dim.Render(textutil.Fit(string(cell.op), thumbW))
	case cell.seed == "":
		// Versions of another field than the seed (prompt=…) send none:
		// the line names the version, its value is under it.
		return th.Dim.Render(textutil.Fit(fmt.Sprintf("version %d", cell.line), thumbW))
	}
	return th.Dim.Render("seed ") + textutil.Fit(cell.seed, thumbW-5)
}
