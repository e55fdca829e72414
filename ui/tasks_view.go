package ui

import (
	"clapper/api"
	"clapper/internal/textutil"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

func (p *tasksPage) View() string {
	th := p.env.theme
	now := p.env.now()
	var b strings.Builder
	cols := layoutColumns(p.width, p.env.team())
	if p.filtering || p.filtered() {
		b.WriteString(p.filterLine() + "\n")
		for _, l := range p.problemLines() {
			b.WriteString(th.Error.Render(l) + "\n")
		}
	}
	if unknown := p.unknown(); len(unknown) > 0 {
		b.WriteString(th.Warning.Render(textutil.Fit(fmt.Sprintf(" %s of unknown outcome: the answer never came (a to attach the task id, x to abandon)", textutil.Plural(len(unknown), "request", "requests")), p.width)) + "\n")
		for i, t := range unknown {
			t.State = unknownOutcome
			b.WriteString(renderRow(th, cols, t, now, i == p.pinned, p.env.frame) + "\n")
		}
		b.WriteString("\n")
	}
	if p.empty && !p.filtered() && p.loadedOnce {
		b.WriteString(p.emptyView())
		return b.String()
	}
	b.WriteString(cols.header(th) + "\n")
	rows := p.visible()
	if len(rows) == 0 && p.loadedOnce {
		b.WriteString(th.Dim.Render("  No task matches these filters. esc clears them."))
	}
	for i, t := range rows {
		sel := p.pinned < 0 && p.scroll+i == p.win.cursor
		b.WriteString(p.rows.render(th, cols, p.width, t, now, sel, p.env.frame))
		if i < len(rows)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (p *tasksPage) filterLine() string {
	th := p.env.theme
	parts := []string{}
	if p.state != 0 {
		parts = append(parts, "state: "+stateChoices[p.state].label)
	}
	if p.op != 0 {
		parts = append(parts, "operation: "+string(api.Operations()[p.op-1]))
	}
	if p.byState {
		parts = append(parts, "sorted by state")
	}
	pos := ""
	if p.win.total > 0 {
		pos = fmt.Sprintf("%d/%d", p.win.position()+1, p.win.total)
	} else {
		pos = "no match"
	}
	right := th.Dim.Render(strings.Join(append(parts, pos), " · "))
	// A word that cannot be read is named in at most half the line, what is
	// typed staying in view; a longer message goes under it whole.
	if p.problem != "" && p.problemLines() == nil {
		right = th.Error.Render(api.CleanLine(p.problem))
	}
	var in string
	if p.filtering {
		in = p.filter.View()
	} else if v := p.filter.Value(); v != "" {
		in = th.Dim.Render("/ ") + api.CleanLine(v)
	}
	return textutil.JoinEnds(in, right, p.width)
}

// problemLines are the lines under the filter that name a word that
// cannot be read, when half the filter line cannot hold it (the states
// state: takes are a list longer than 80 columns): at most two.
func (p *tasksPage) problemLines() []string {
	msg := api.CleanLine(p.problem)
	if msg == "" || ansi.StringWidth(msg) <= max(p.width/2, 20) {
		return nil
	}
	lines := strings.Split(wrap(msg, p.width-2), "\n")
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = textutil.Truncate(strings.TrimRight(lines[1], " ")+" …", p.width-2)
	}
	for i := range lines {
		lines[i] = " " + lines[i]
	}
	return lines
}

func (p *tasksPage) emptyView() string {
	th := p.env.theme
	w := max(p.width-4, 20)
	var b strings.Builder
	b.WriteString("\n" + th.Strong.Render("  No tasks yet.") + "\n\n")
	b.WriteString(indent(wrap("Press "+th.Key.Render("n")+" for the New page, or create one from another terminal:", w), 2) + "\n")
	b.WriteString(th.Key.Render(indent(wrap("clapper create text2video --set model=svcq3-turbo --set prompt='a red fox in fresh snow'", w-2), 4)) + "\n")
	b.WriteString(indent(wrap("Tasks show here as soon as they are sent and change live until their results are ready.", w), 2) + "\n")
	if p.env.studio.Sandbox() {
		b.WriteString("\n" + indent(wrap(th.Badge.Render("SANDBOX")+" You are on the embedded sandbox: results are simulated and nothing is billed. "+
			"To go live, set CLAPPER_API_KEY and CLAPPER_BASE_URL, or enter a key on the Settings page ("+th.Key.Render("6")+").", w), 2))
	}
	return b.String()
}
