package ui

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/studio"
)

// scrollRows keeps room lines of rows around the chosen one (and the help
// line under it), the first and last saying how many rows are out of view.
func scrollRows(rows []string, chosen, room int, th *Theme) []string {
	start := min(max(chosen-(room-2)/2, 0), len(rows)-room)
	end := start + room
	out := slices.Clone(rows[start:end])
	if start > 0 {
		out[0] = th.Dim.Render(fmt.Sprintf("  ↑ %d more", start+1))
	}
	if end < len(rows) {
		out[len(out)-1] = th.Dim.Render(fmt.Sprintf("  ↓ %d more", len(rows)-end+1))
	}
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (p *settingsPage) View() string {
	th := p.env.theme
	var b strings.Builder
	cur := p.env.studio.Config
	b.WriteString(th.Title.Render(" Settings") + th.Dim.Render("  running on ") + th.Strong.Render(api.CleanLine(cur.Backend())) + "\n\n")
	lw := 19
	var rows []string // one line a row, and the chosen row's help under it
	chosen := 0       // the chosen row's line
	for i, r := range p.rows {
		v := api.CleanLine(r.get(&p.draft))
		switch {
		case r.kind == secretSetting && v != "":
			v = studio.MaskKey(v)
		case v == "" && r.kind == secretSetting:
			v = th.Dim.Render("none — sandbox")
		case v == "" && r.unset != "":
			v = th.Dim.Render(r.unset)
		case v == "":
			v = th.Dim.Render("default")
		case r.show != nil:
			v = api.CleanLine(r.show(v))
		}
		if r.sandboxOnly && p.draft.Live() {
			v = th.Dim.Render("not used: LIVE (" + v + " on the sandbox)")
		}
		if r.kind == secretSetting && os.Getenv(studio.EnvAPIKey) != "" {
			v = studio.MaskKey(os.Getenv(studio.EnvAPIKey)) + th.Dim.Render(" (from "+studio.EnvAPIKey+")")
		}
		if from := p.sessionOnly(i); from != "" && !p.typed[i] {
			// Whole: the value gives way to it, as where it came from
			// says why saving does not keep it.
			note := " (from " + from + "; not saved)"
			v = textutil.Truncate(v, max(p.width-lw-3-len(note), 10)) + th.Dim.Render(note)
		}
		marker := "  "
		label := textutil.Fit(r.label, lw)
		if i == p.cursor {
			marker = th.Marker.Render("▌") + " "
			label = th.Strong.Render(label)
		}
		if i == p.cursor && p.editing {
			v = p.input.View()
		}
		if i == p.cursor {
			chosen = len(rows)
		}
		if !(i == p.cursor && p.editing) {
			v = textutil.Truncate(v, max(p.width-lw-3, 10)) // the edge shows no cut
		}
		rows = append(rows, marker+label+" "+v)
		if i == p.cursor {
			help := r.help
			if p.editing && p.paths != nil {
				if hint := strings.TrimSpace(p.paths.Hint(max(p.width-lw-4, 10))); hint != "" {
					help = hint
				} else {
					help += " Tab completes."
				}
			}
			// Two lines of it: one cut what most rows' help says last
			// (what wins over the setting, what saving does).
			for _, line := range wrapAtMost(help, max(p.width-lw-4, 10), 2) {
				rows = append(rows, strings.Repeat(" ", lw+3)+th.Dim.Render(line))
			}
		}
	}
	var tail []string
	switch {
	case p.checking != "":
		tail = append(tail, th.Warning.Render(" "+p.checking))
	case p.problem != "":
		for _, line := range strings.Split(wrap(p.problem, max(p.width-2, 20)), "\n") {
			tail = append(tail, th.Error.Render(" "+line))
		}
	case p.dirty():
		tail = append(tail, th.Warning.Render(" Unsaved changes: s saves them and restarts on them; esc discards them."))
	}
	w := max(p.width-2, 20)
	settings, err := studio.SettingsPath()
	history, historyLabel := api.CleanLine(cur.HistoryPath()), " History of this backend (each backend keeps its own):"
	if cur.Team() {
		history, historyLabel = api.CleanLine(studio.RedactURL(cur.HistoryURL)), " Team history (shared by every machine that names it):"
	}
	// Paths stay on one line each, cut at the end if they must be: a
	// wrapped path reads as two. Where the page is short they go beside
	// their names, so the history path is never the line that falls off.
	// Where even then the rows do not fit, they scroll with the chosen one
	// (its help under it), a line saying how many are above and below.
	if room := p.height - 2 - 1 - len(tail) - 2; p.height > 0 && len(rows) > room {
		rows = scrollRows(rows, chosen, max(room, 4), th)
	}
	b.WriteString(strings.Join(rows, "\n") + "\n")
	lines := strings.Count(b.String(), "\n") + 1 + len(tail)
	if lines+4 <= p.height || p.height == 0 {
		if err == nil {
			tail = append(tail, th.Dim.Render(" Settings file (0600, may hold the key):"), "   "+textutil.Fit(api.CleanLine(settings), w-2))
		}
		tail = append(tail, th.Dim.Render(historyLabel), "   "+textutil.Fit(history, w-2))
	} else {
		if err == nil {
			tail = append(tail, th.Dim.Render(" Settings file ")+textutil.Fit(api.CleanLine(settings), w-15))
		}
		tail = append(tail, th.Dim.Render(" History       ")+textutil.Fit(history, w-15))
	}
	b.WriteString("\n" + strings.Join(tail, "\n") + "\n")
	return b.String()
}
