package ui

import (
	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"fmt"
	"slices"
	"strings"
	"time"
)

func (p *historyPage) View() string {
	th := p.env.theme
	var b strings.Builder
	switch {
	case p.typing:
		b.WriteString(p.search.View())
	case p.search.Value() != "":
		// The words searched first; how to change them where they fit.
		value, hint := api.CleanLine(p.search.Value()), "   (/ to change, esc in search clears)"
		room := p.width - textutil.Width("search › ")
		if textutil.Width(value+hint) > room {
			value, hint = textutil.Truncate(value, room), ""
		}
		b.WriteString(th.Dim.Render("search › ") + value + th.Dim.Render(hint))
	default:
		// The words a search takes, as many whole as fit.
		hint := "/ search:"
		words := strings.Fields("words state: op: model: tag: by: set: is:keeper from: to:")
		for i, w := range words {
			more := map[bool]string{true: " …"}[i < len(words)-1]
			if textutil.Width(hint+" "+w+more) > p.width {
				hint += " …"
				break
			}
			hint += " " + w
		}
		b.WriteString(th.Dim.Render(hint))
	}
	b.WriteString("\n")
	switch {
	case p.problem != "":
		// A word that cannot be read is named whole where it fits in two
		// lines (the states state: takes are longer than 80 columns): the
		// second takes the blank line's place.
		lines := wrapAtMost(api.CleanLine(p.problem), p.width, 2)
		b.WriteString(th.Error.Render(strings.Join(lines, "\n")) + strings.Repeat("\n", 3-len(lines)))
	default:
		b.WriteString(p.totalsLine())
		b.WriteString("\n\n")
	}
	listW := p.width
	if p.wide() {
		listW = p.width - chartWidth - 3
	}
	var body string
	if p.chartsInPlace() {
		lines := strings.Split(strings.TrimRight(p.charts(p.width), "\n"), "\n")
		h := p.listHeight()
		p.chartLines = len(lines)
		p.chartScroll = min(p.chartScroll, max(len(lines)-h, 0))
		body = strings.Join(lines[p.chartScroll:min(p.chartScroll+h, len(lines))], "\n")
	} else {
		body = p.list(listW)
	}
	if p.wide() {
		body = joinColumns(body, p.charts(chartWidth), listW)
	}
	b.WriteString(body)
	return b.String()
}

// searched reports a search beyond dates: its totals are of the tasks it
// matches, not of the span's days.
func searched(f record.Filter) bool {
	return f.Text != "" || len(f.States) > 0 || len(f.Operations) > 0 || len(f.Models) > 0 || len(f.Tags) > 0 ||
		len(f.SentBy) > 0 || f.SetID != 0 || f.Keeper
}

// chartsInPlace: on a narrow terminal c shows the charts instead of the list.
func (p *historyPage) chartsInPlace() bool { return !p.wide() && p.showCharts }

// totalsLine is the counts by state of the search's tasks and what they
// cost; "counting…" while a new search's count outlasts countingGrace.
func (p *historyPage) totalsLine() string {
	th := p.env.theme
	switch {
	case p.countingShown:
		return th.Dim.Render("counting…")
	case p.totalsErr != nil:
		return th.Error.Render(textutil.Fit("totals: "+api.CleanLine(p.totalsErr.Error()), p.width))
	case p.totals.counts == nil:
		return ""
	}
	t := p.totals
	total := 0
	keys := make([]string, 0, len(t.counts))
	for s, n := range t.counts {
		total += n
		keys = append(keys, s)
	}
	slices.Sort(keys)
	parts := []string{th.Strong.Render(textutil.Plural(total, "task", "tasks"))}
	// The spending right after the count: an 80-column line cuts the
	// states at its end, not what was spent.
	if searched(t.of) {
		// A search beyond dates: the total is of the tasks it matches.
		parts = append(parts, credits(t.credits)+" spent on these")
	} else {
		parts = append(parts, p.spentText())
	}
	for _, s := range keys {
		parts = append(parts, stateStyle(th, s)(fmt.Sprintf("%d %s", t.counts[s], stateLabel(s))))
	}
	return textutil.Fit(strings.Join(parts, th.Dim.Render(" · ")), p.width)
}

// spentText is what the span's days cost, named by the first and the last
// day that cost something (all of it on Nov 27 is "spent Nov 27", not over
// the whole span); a span with nothing spent is named whole.
func (p *historyPage) spentText() string {
	t := p.totals
	var first, last time.Time
	for _, d := range p.byDay {
		if d.Credits > 0 {
			if first.IsZero() {
				first = d.Day
			}
			last = d.Day
		}
	}
	switch {
	case t.credits == 0 || first.IsZero():
		return fmt.Sprintf("nothing spent %s–%s", t.from.Format("Jan 2"), t.to.AddDate(0, 0, -1).Format("Jan 2"))
	case first.Equal(last):
		return fmt.Sprintf("%s spent %s", credits(t.credits), first.Format("Jan 2"))
	}
	return fmt.Sprintf("%s spent %s–%s", credits(t.credits), first.Format("Jan 2"), last.Format("Jan 2"))
}

func (p *historyPage) list(w int) string {
	th := p.env.theme
	now := p.env.now()
	cols := layoutColumns(w, p.env.team())
	n := p.listHeight() - 1
	c := p.win.cursor
	if c < p.scroll {
		p.scroll = c
	}
	if c >= p.scroll+n {
		p.scroll = c - n + 1
	}
	p.scroll = min(max(p.scroll, 0), max(len(p.win.rows)-n, 0))
	var b strings.Builder
	b.WriteString(cols.header(th))
	if len(p.win.rows) == 0 {
		b.WriteString("\n" + th.Dim.Render("  No task matches."))
	}
	for i := p.scroll; i < min(p.scroll+n, len(p.win.rows)); i++ {
		b.WriteString("\n" + renderRow(th, cols, p.win.rows[i], now, i == c, p.env.frame))
	}
	return b.String()
}

// charts draws credits by day and by model as bars.
func (p *historyPage) charts(w int) string {
	th := p.env.theme
	var b strings.Builder
	of := ""
	if searched(p.query) {
		of = th.Dim.Render(" · of these tasks")
	}
	b.WriteString(th.Section.Render("Credits by day") + of + "\n")
	var maxDay int64
	for _, d := range p.byDay {
		maxDay = max(maxDay, d.Credits)
	}
	// Days with nothing spent take no row: the chart lists the days that
	// cost something (the latest 14) and counts the others.
	var days []record.DayCredits
	for _, d := range p.byDay {
		if d.Credits > 0 {
			days = append(days, d)
		}
	}
	spent := len(days)
	if len(days) > 14 {
		days = days[len(days)-14:]
	}
	if len(days) == 0 {
		b.WriteString(th.Dim.Render("  nothing spent in this span") + "\n")
	}
	if hidden := spent - len(days); hidden > 0 {
		b.WriteString(th.Dim.Render("  "+textutil.Plural(hidden, "earlier day", "earlier days")+" with credits not drawn") + "\n")
	}
	for _, d := range days {
		b.WriteString(th.Dim.Render(d.Day.Format("Jan 02")) + " " + bar(th, d.Credits, maxDay, w-17) + " " + fmt.Sprint(d.Credits) + "\n")
	}
	if idle := len(p.byDay) - spent; idle > 0 && len(days) > 0 {
		// The span by its dates ("of the span" did not say which), the
		// month once within one; where the line does not fit, what was
		// spent goes under it, the dates kept whole.
		first, last := p.byDay[0].Day, p.byDay[len(p.byDay)-1].Day
		span := first.Format("Jan 2") + "–" + last.Format("Jan 2")
		if first.Month() == last.Month() && first.Year() == last.Year() {
			span = first.Format("Jan 2") + "–" + last.Format("2")
		}
		line, sep := "  "+textutil.Plural(idle, "other day", "other days")+" of "+span+":", " "
		if textutil.Width(line)+len(" nothing spent") > w {
			sep = "\n  "
		}
		b.WriteString(th.Dim.Render(line+sep+"nothing spent") + "\n")
	}
	b.WriteString("\n" + th.Section.Render("Credits by model") + of + "\n")
	var maxModel int64
	for _, m := range p.byModel {
		maxModel = max(maxModel, m.Credits)
	}
	if len(p.byModel) == 0 {
		b.WriteString(th.Dim.Render("  nothing spent in this span") + "\n")
	}
	for _, m := range p.byModel {
		b.WriteString(textutil.Fit(api.CleanLine(m.Model), 14) + " " + bar(th, m.Credits, maxModel, w-25) + " " + fmt.Sprint(m.Credits) + "\n")
	}
	return b.String()
}

// bar is a horizontal bar of n out of most, w cells at full length, with
// eighth-cell resolution.
func bar(th *Theme, n, most int64, w int) string {
	w = max(w, 4)
	if most <= 0 || n <= 0 {
		return strings.Repeat(" ", w)
	}
	eighths := int(n * int64(w) * 8 / most)
	full, rest := eighths/8, eighths%8
	s := strings.Repeat("█", full)
	if rest > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[rest-1])
	}
	return th.Title.Render(s) + strings.Repeat(" ", max(w-full-min(rest, 1), 0))
}
