package ui

import (
	"fmt"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

func (p *newPage) operationView() string {
	th := p.env.theme
	ops := api.Operations()
	// Each operation by its wire name, then in people's words (Music video
	// for mv), as far as the terminal leaves room beside the details.
	const wireW = 19
	peopleW := min(max(p.width-wireW-4-3-34, 0), 19)
	listW := wireW + peopleW + 4
	var left strings.Builder
	for i, op := range ops {
		mark := "  "
		if p.has[op] {
			mark = th.Warning.Render(" ●")
		}
		line := textutil.Fit(string(op), wireW)
		people := ""
		if peopleW > 0 {
			people = textutil.Fit(catalog.Info(op).Name, peopleW)
		}
		if i == p.cursor {
			left.WriteString(th.Marker.Render("▌") + th.Selected.Render(" "+line+people) + mark + "\n")
		} else {
			left.WriteString("  " + line + th.Dim.Render(people) + mark + "\n")
		}
	}
	right := p.operationDetail(max(p.width-listW-3, 20))
	return joinColumns(left.String(), right, listW)
}

func (p *newPage) operationDetail(w int) string {
	th := p.env.theme
	op := p.selected()
	info := catalog.Info(op)
	var b strings.Builder
	b.WriteString(th.Title.Render(string(op)) + "\n" + wrap(info.Title, w) + "\n\n")
	if len(info.Models) > 0 {
		b.WriteString(th.Dim.Render("models: ") + wrapIndent(strings.Join(info.Models, ", "), w-8, 8) + "\n\n")
	}
	if p.has[op] {
		b.WriteString(th.Warning.Render("● a draft is kept") + "\n" + th.Dim.Render(wrap("enter opens it · ctrl+d discards it", w)) + "\n")
	} else if len(info.Models) > 0 {
		b.WriteString(th.Dim.Render(wrap("enter: choose a model, then fill the form", w)) + "\n")
	} else {
		b.WriteString(th.Dim.Render(wrap("enter: fill the form", w)) + "\n")
	}
	b.WriteString("\n" + th.Dim.Render(wrap("Every field follows the chosen model: its options, defaults and limits, checked as you type. A form you leave is kept, even across restarts.", w)))
	return b.String()
}

func (p *newPage) modelView() string {
	th := p.env.theme
	op := p.selected()
	w := max(p.width-4, 30)
	var b strings.Builder
	b.WriteString(" " + th.Title.Render(string(op)) + th.Dim.Render(" · choose a model (you can change it in the form)") + "\n\n")
	for i, m := range catalog.Models(op) {
		line := textutil.Fit(m, 16) + " " + th.Dim.Render(modelSummary(op, m))
		if i == p.model {
			b.WriteString(" " + th.Marker.Render("▌") + th.Selected.Render(" "+textutil.Fit(m, 16)) + " " + th.Dim.Render(textutil.Fit(modelSummary(op, m), w-20)) + "\n")
		} else {
			b.WriteString("   " + textutil.Fit(line, w) + "\n")
		}
	}
	return b.String()
}

// modelSummary is what sets a model apart, from its table: durations,
// resolutions, audio.
func modelSummary(op api.Operation, model string) string {
	s, err := catalog.Lookup(op, model)
	if err != nil {
		return ""
	}
	var parts []string
	if f, ok := s.Field("duration"); ok && f.Range != nil && f.Range.HasMax {
		if f.Range.Min == f.Range.Max {
			parts = append(parts, fmt.Sprintf("%g s", f.Range.Min))
		} else {
			parts = append(parts, fmt.Sprintf("%g-%g s", f.Range.Min, f.Range.Max))
		}
	}
	if f, ok := s.Field("resolution"); ok && len(f.Options) > 0 {
		parts = append(parts, strings.Join(f.Options, " "))
	}
	if f, ok := s.Field("images"); ok && f.MaxItems > 0 {
		parts = append(parts, fmt.Sprintf("up to %s", textutil.Plural(f.MaxItems, "image")))
	}
	if f, ok := s.Field("audio"); ok && f.Default == true {
		parts = append(parts, "audio by default")
	}
	if _, ok := s.Field("subjects"); ok {
		parts = append(parts, "subjects")
	}
	if _, ok := s.Field("videos"); ok {
		parts = append(parts, "reference videos")
	}
	if _, ok := s.Field("sounds"); ok {
		parts = append(parts, "sounds")
	}
	return strings.Join(parts, " · ")
}

// joinColumns puts left (of width lw) and right side by side, line by line.
func joinColumns(left, right string, lw int) string {
	ll := strings.Split(strings.TrimRight(left, "\n"), "\n")
	rl := strings.Split(strings.TrimRight(right, "\n"), "\n")
	n := max(len(ll), len(rl))
	var b strings.Builder
	for i := range n {
		l, r := "", ""
		if i < len(ll) {
			l = ll[i]
		}
		if i < len(rl) {
			r = rl[i]
		}
		b.WriteString(textutil.Fit(l, lw) + " │ " + r)
		if i < n-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
