package forms

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// labelColumn is where values start when a field fits on one line: after
// the longest label the operation may show, within bounds.
func (f *Form) labelColumn() int {
	// Sized by every field the operation has under any model, so switching
	// models never moves the values sideways.
	n := 12
	for _, name := range catalog.FieldNames(f.op) {
		n = max(n, len(name)+3)
	}
	for _, r := range f.rows {
		if r.kind == rowField {
			n = max(n, len(r.name)+3) // a field no table knows
		}
	}
	return min(n, 27)
}

// wordsWidth is the room for fields' people's words beside their names:
// on wide terminals only, and only when the operation has such a field.
func (f *Form) wordsWidth(inner int) int {
	if inner < 110 {
		return 0
	}
	n := 0
	for _, name := range catalog.FieldNames(f.op) {
		if w, ok := fieldWords[name]; ok {
			n = max(n, len(w)+2)
		}
	}
	return min(n, 18)
}

// View draws the form in its width and height: a heading, the rows around
// the focused one, and a status line with the body's size and the rules
// broken.
func (f *Form) View() string {
	switch f.mode {
	case modeReview:
		return f.reviewView()
	case modePicker:
		return f.pickerView()
	case modeReference:
		return f.referenceView()
	}
	s := f.styles
	w := max(f.width, 40)
	head := s.Title.Render(textutil.Truncate(f.title(), w))
	status := f.statusLine(w)
	room := max(f.height-3, 3)

	blocks := make([]string, len(f.rows))
	heights := make([]int, len(f.rows))
	for i := range f.rows {
		blocks[i] = f.rowView(i, w)
		heights[i] = lipgloss.Height(blocks[i])
	}
	// Scroll so the focused row shows whole, moving as little as possible.
	top := 0
	for i := 0; i < f.focus; i++ {
		top += heights[i]
	}
	bottom := top + heights[f.focus]
	if top < f.offset {
		f.offset = top
	}
	if bottom > f.offset+room {
		f.offset = bottom - room
	}
	lines := strings.Split(strings.Join(blocks, "\n"), "\n")
	f.offset = min(f.offset, max(len(lines)-room, 0))
	end := min(f.offset+room, len(lines))
	shown := lines[f.offset:end]
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, l := range shown {
		b.WriteString(l + "\n")
	}
	for i := len(shown); i < room; i++ {
		b.WriteString("\n")
	}
	more := ""
	if f.offset > 0 {
		more += "↑"
	}
	if end < len(lines) {
		more += "↓"
	}
	if more != "" {
		status = textutil.JoinEnds(status, s.Dim.Render(more+" more"), w)
	}
	b.WriteString("\n" + status)
	return b.String()
}

// statusLine sums the request up: size against the limit, rules broken,
// whether the check is still running.
func (f *Form) statusLine(w int) string {
	s := f.styles
	if f.hint != "" {
		return s.Warning.Render(textutil.Truncate(f.hint, w))
	}
	c := f.check
	if c == nil {
		return s.Dim.Render("checking…")
	}
	size := "request " + f.sizeText()
	parts := []string{s.Dim.Render(size)}
	if c.Size > catalog.MaxBodyBytes && c.Uploaded == 0 {
		parts[0] = s.Error.Render(size)
	}
	missing := 0
	for _, m := range c.Missing {
		missing += len(m)
	}
	switch broken := len(c.Broken) - missing; {
	case broken == 0 && missing == 0:
		parts = append(parts, s.OK.Render("✓ the catalog accepts it"))
	case broken == 0:
		parts = append(parts, s.Warning.Render(fmt.Sprintf("%s to fill", textutil.Plural(missing, "required field"))))
	default:
		text := "✗ " + textutil.Plural(broken, "rule") + " broken"
		if missing > 0 {
			text += fmt.Sprintf(" · %d required to fill", missing)
		}
		parts = append(parts, s.Error.Render(text))
	}
	if len(c.Warnings) > 0 {
		parts = append(parts, s.Warning.Render("! "+textutil.Plural(len(c.Warnings), "unknown field")))
	}
	if f.rev != f.checkedRev {
		parts = append(parts, s.Dim.Render("checking…"))
	}
	return textutil.Truncate(strings.Join(parts, s.Dim.Render(" · ")), w)
}

// rowView draws one row: the bar marks the focused one.
func (f *Form) rowView(i, w int) string {
	s := f.styles
	r := f.rows[i]
	focused := i == f.focus
	bar := "  "
	if focused {
		bar = s.Bar.Render("┃ ")
	}
	switch r.kind {
	case rowAdvanced:
		arrow := "▸"
		if f.advanced {
			arrow = "▾"
		}
		set, bad := 0, 0
		for name := range advanced {
			if e, ok := f.editors[name]; ok && e.Value() != nil {
				set++
			}
			if f.check != nil && len(f.check.Errors[name])+len(f.check.Missing[name]) > 0 {
				bad++
			}
		}
		text := s.Section.Render(arrow+" Advanced") + s.Dim.Render("  "+strings.Join(f.advancedNames(), ", "))
		if set > 0 {
			text += s.Value.Render(fmt.Sprintf(" · %d set", set))
		}
		if bad > 0 {
			text += s.Error.Render(fmt.Sprintf(" · ✗ %d", bad))
		}
		return "\n" + bar + textutil.Truncate(text, w-2)
	case rowSubmit:
		label := " Review & send  ctrl+s "
		if focused {
			return "\n" + bar + s.Selected.Render(label)
		}
		return "\n" + bar + s.Key.Render(label)
	}
	e := f.editors[r.name]
	field, inSpec := f.spec.Field(r.name)
	if !inSpec {
		field, _ = catalog.FieldOf(f.op, r.name)
	}
	name := r.name
	if f.required(field) {
		name += " *"
	}
	nameStyle := s.Label
	if focused {
		nameStyle = s.Focused
	}
	counter := e.Counter()
	var errs []string
	if f.check != nil {
		if f.touched[r.name] || f.showAll {
			errs = append(errs, f.check.Missing[r.name]...)
		}
		errs = append(errs, f.check.Errors[r.name]...)
	}
	counterStyle := s.Dim
	if len(errs) > 0 {
		counterStyle = s.Error
	}
	inner := w - 2
	labelWidth := f.labelColumn()
	var b strings.Builder
	oneLine := false
	switch e.(type) {
	case *lineEditor, *choiceEditor:
		oneLine = inner >= 60
	}
	if oneLine {
		label := nameStyle.Render(textutil.Fit(name, labelWidth-1)) + " "
		if words := f.wordsWidth(inner); words > 0 {
			// Wide enough: the field in people's words beside its name.
			label += s.Dim.Render(textutil.Fit(fieldWords[r.name], words))
			labelWidth += words
		}
		right := ""
		if counter != "" {
			right = " " + counterStyle.Render(counter)
		}
		valueW := inner - labelWidth - lipgloss.Width(right)
		v := e.View(s, max(valueW, 10), focused)
		first, rest, _ := strings.Cut(v, "\n")
		first = textutil.Truncate(first, valueW)
		b.WriteString(bar + label + first + strings.Repeat(" ", max(valueW-lipgloss.Width(first), 0)) + right)
		if rest != "" {
			for _, l := range strings.Split(rest, "\n") {
				b.WriteString("\n" + bar + strings.Repeat(" ", labelWidth) + textutil.Truncate(l, valueW))
			}
		}
	} else {
		label := nameStyle.Render(name)
		if counter != "" {
			label = textutil.JoinEnds(label, counterStyle.Render(counter), inner)
		}
		b.WriteString(bar + label)
		var v string
		if l, ok := e.(*listEditor); ok && f.check != nil {
			v = l.view(s, inner, focused, f.mediaNote)
		} else if fe, ok := e.(*framesEditor); ok && f.check != nil {
			v = fe.view(s, inner, focused, f.mediaNote)
		} else {
			v = e.View(s, inner, focused)
		}
		for _, l := range strings.Split(v, "\n") {
			b.WriteString("\n" + bar + textutil.Truncate(l, inner))
		}
	}
	if l, ok := e.(*lineEditor); ok && f.check != nil && l.f.Kind == catalog.KindMedia {
		if n, ok := f.check.Media[strings.TrimSpace(l.val)]; ok && !n.Bad {
			b.WriteString("\n" + bar + strings.Repeat(" ", min(labelWidth, inner/3)) + s.Dim.Render(textutil.Truncate(n.Text, inner-labelWidth)))
		}
	}
	if r.stray && len(errs) == 0 && f.check != nil {
		errs = []string{r.name + ": not a field of " + f.subject() + "; remove it (ctrl+d) or choose another model"}
	}
	for _, msg := range errs {
		if fe, ok := e.(*framesEditor); ok {
			msg = fe.say(msg)
		}
		for _, l := range strings.Split(wrapStyled(s.Error, "✗ "+msg, inner), "\n") {
			b.WriteString("\n" + bar + l)
		}
	}
	if f.check != nil && f.check.Inert[r.name] != "" && e.Value() != nil {
		b.WriteString("\n" + bar + s.Warning.Render(textutil.Truncate("○ "+r.name+": "+f.check.Inert[r.name], inner)))
	}
	if help := f.help(field); focused && help != "" {
		b.WriteString("\n" + bar + s.Dim.Render(textutil.Truncate(peopleWords(r.name, help), inner)))
	}
	if c, ok := e.(*choiceEditor); ok && field.OptionHelp != nil {
		if o := c.effective(); field.OptionHelp[o] != "" {
			b.WriteString("\n" + bar + s.Dim.Render(textutil.Truncate("  "+o+": "+field.OptionHelp[o], inner)))
		}
	}
	return b.String()
}

// advancedNames are the advanced fields this model has, as the header
// lists them.
func (f *Form) advancedNames() []string {
	var out []string
	for _, fd := range f.spec.Fields {
		if advanced[fd.Name] && fd.Name != "wm_position" {
			out = append(out, strings.ReplaceAll(fd.Name, "_", " "))
		}
	}
	return out
}

func (f *Form) subject() string {
	if f.model != "" {
		return f.model
	}
	return string(f.op)
}

func (f *Form) mediaNote(v string) (string, bool) {
	n, ok := f.check.Media[v]
	if !ok {
		return "", false
	}
	return n.Text, n.Bad
}

// wrapStyled wraps a message to width, every line styled, continuation
// lines indented under the text.
func wrapStyled(st lipgloss.Style, text string, w int) string {
	lines := strings.Split(textutil.Wrap(text, max(w-2, 10)), "\n")
	for i, l := range lines {
		if i > 0 {
			l = "  " + l
		}
		lines[i] = st.Render(l)
	}
	return strings.Join(lines, "\n")
}
