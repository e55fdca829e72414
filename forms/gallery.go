package forms

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// galleryEditor picks one of a long, open list of named choices, each with
// what it makes and what it needs: template2video's templates. Focused, it
// lists them; typing narrows the list (a name no entry has is sent as
// written, the list being the service's and longer than ours); ↑/↓ walk
// the entries and the choice follows the highlight, so the form shows at
// once the fields the highlighted template takes.
type galleryEditor struct {
	f      catalog.Field
	val    string // "" = none chosen
	filter string
	cursor int // into shown(); -1 before the first while none is chosen
}

func newGalleryEditor(f catalog.Field) *galleryEditor { return &galleryEditor{f: f, cursor: -1} }

func (e *galleryEditor) SetField(f catalog.Field) { e.f = f }
func (e *galleryEditor) Focus() tea.Cmd           { e.place(); return nil }
func (e *galleryEditor) Blur()                    { e.filter = "" }

// galleryRows is how many entries show at once.
const galleryRows = 7

var (
	galleryMove   = key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "choose"))
	galleryFilter = key.NewBinding(key.WithKeys("a"), key.WithHelp("type", "filter"))
	galleryClear  = key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "clear filter"))
)

// shown are the entries the filter keeps: a name or a description holding
// every typed word.
func (e *galleryEditor) shown() []string {
	words := strings.Fields(strings.ToLower(e.filter))
	var out []string
	for _, o := range e.f.Options {
		text := strings.ToLower(o + " " + e.f.OptionHelp[o])
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(text, w) }) {
			out = append(out, o)
		}
	}
	return out
}

// place puts the highlight on the value, when the list shows it, else
// before the first entry.
func (e *galleryEditor) place() {
	e.cursor = slices.Index(e.shown(), e.val)
}

func (e *galleryEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	before, filter := e.val, e.filter
	switch m := msg.(type) {
	case tea.PasteMsg:
		e.typed(e.filter + api.CleanLine(m.Content))
	case tea.KeyPressMsg:
		shown := e.shown()
		switch k := m.String(); {
		case k == "up" && e.cursor > 0:
			e.cursor--
			e.val = shown[e.cursor]
		case k == "down" && e.cursor < len(shown)-1:
			e.cursor++
			e.val = shown[e.cursor]
		case k == "ctrl+u":
			e.filter = ""
			e.place()
		case k == "backspace" && e.filter != "":
			r := []rune(e.filter)
			e.typed(string(r[:len(r)-1]))
		case k == "backspace" || k == "delete":
			e.val = ""
			e.place()
		case m.Text != "" && k != "enter":
			e.typed(e.filter + m.Text)
		}
	}
	// A narrower list is a change too: the key did something.
	return nil, e.val != before || e.filter != filter
}

// typed narrows the list: the first entry left is the choice; with none
// left, the text itself is (a template of the service's that clapper does
// not list).
func (e *galleryEditor) typed(filter string) {
	e.filter = filter
	e.cursor = 0
	switch shown := e.shown(); {
	case len(shown) > 0:
		e.val = shown[0]
	case e.f.OpenChoice:
		e.val = strings.TrimSpace(filter)
	}
}

// needs is what an entry makes and asks for: a known template's photos,
// prompt and own field; else the option's help.
func (e *galleryEditor) needs(o string) (needs, makes string) {
	if t, ok := catalog.TemplateNamed(o); ok {
		return t.Needs(), t.Description
	}
	return "", e.f.OptionHelp[o]
}

// OwnsKey claims up and down inside the list, and backspace while a filter
// is typed.
func (e *galleryEditor) OwnsKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "up":
		return e.cursor > 0
	case "down":
		return e.cursor < len(e.shown())-1
	}
	return false
}

func (e *galleryEditor) Value() any {
	if e.val == "" {
		return nil
	}
	return e.val
}

func (e *galleryEditor) Set(v any) {
	e.val, e.filter = "", ""
	if v != nil {
		e.val = catalog.FormatValue(v)
		if s, ok := v.(string); ok {
			e.val = s
		}
	}
	e.place()
}

func (e *galleryEditor) Counter() string {
	if n := len(e.shown()); e.filter != "" {
		return fmt.Sprintf("%d of %d", n, len(e.f.Options))
	}
	return fmt.Sprintf("%d known", len(e.f.Options))
}

func (e *galleryEditor) Keys() []key.Binding {
	ks := []key.Binding{galleryMove, galleryFilter}
	if e.filter != "" {
		ks = append(ks, galleryClear)
	}
	return ks
}

// known reports whether the value is one of the listed entries.
func (e *galleryEditor) known() bool { return slices.Contains(e.f.Options, e.val) }

// View shows the choice on one line; focused, the filter and a window of
// the entries around the highlight, each with what it makes and needs.
func (e *galleryEditor) View(s *Styles, width int, focused bool) string {
	if !focused {
		switch {
		case e.val == "":
			return s.Dim.Render(textutil.Truncate("none chosen · "+strings.Join(e.f.Options, ", "), width))
		case !e.known():
			return textutil.Truncate(s.Value.Render(api.CleanLine(e.val))+s.Warning.Render("  not a template clapper knows: sent as written"), width)
		}
		needs, makes := e.needs(e.val)
		return textutil.Truncate(s.Value.Render(e.val)+s.Dim.Render("  "+strings.Trim(needs+" · "+makes, " ·")), width)
	}
	var b strings.Builder
	filter := s.Key.Render("/ ") + s.Value.Render(api.CleanLine(e.filter)) + s.Focused.Render("▏")
	if e.filter == "" {
		filter = s.Key.Render("/ ") + s.Dim.Render("type to filter by name or what it makes")
	}
	b.WriteString(textutil.Truncate(filter, width))
	shown := e.shown()
	if len(shown) == 0 {
		note := "no template matches"
		if e.f.OpenChoice && e.val != "" {
			note += ": “" + api.CleanLine(e.val) + "” is sent as written (the service's list is longer than clapper's)"
		}
		b.WriteString("\n" + s.Warning.Render(textutil.Truncate("  "+note, width)))
		return b.String()
	}
	first := min(max(e.cursor-galleryRows/2, 0), max(len(shown)-galleryRows, 0))
	nameW, needW := 0, 0
	for _, o := range e.f.Options {
		n, _ := e.needs(o)
		nameW, needW = max(nameW, lipgloss.Width(o)), max(needW, lipgloss.Width(n))
	}
	for i := first; i < min(first+galleryRows, len(shown)); i++ {
		o := shown[i]
		mark, st := "  ", s.Value
		if i == e.cursor {
			mark, st = s.Focused.Render("› "), s.Selected
		}
		needs, makes := e.needs(o)
		line := mark + st.Render(textutil.Fit(o, nameW)) + "  " + s.Value.Render(textutil.Fit(needs, needW)) + "  " + s.Dim.Render(makes)
		b.WriteString("\n" + textutil.Truncate(line, width))
	}
	// The highlighted entry in full where a narrow screen cut it.
	foot := "none chosen: ↓ picks the first, or type to filter"
	if e.cursor >= 0 && e.cursor < len(shown) {
		needs, makes := e.needs(shown[e.cursor])
		foot = ""
		if 2+nameW+2+needW+2+lipgloss.Width(makes) > width {
			foot = strings.Trim(shown[e.cursor]+": "+makes+" · needs "+needs, " ·")
		}
	}
	if len(shown) > galleryRows {
		// No separator before a foot that has nothing more to say.
		foot = strings.TrimSuffix(fmt.Sprintf("%d of %d · ", max(e.cursor+1, 0), len(shown))+foot, " · ")
	}
	if foot == "" {
		return b.String()
	}
	lines := strings.Split(textutil.Wrap(foot, max(width-4, 10)), "\n")
	if len(lines) > 2 {
		lines = []string{lines[0], textutil.Truncate(strings.Join(lines[1:], " "), max(width-4, 10))}
	}
	for _, l := range lines {
		b.WriteString("\n" + s.Dim.Render("  "+l))
	}
	return b.String()
}
