package forms

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api/catalog"
)

// choiceEditor picks one of a field's options with ←/→, or a letter to jump:
// enums, flags and the model. Unset shows the default the service applies.
type choiceEditor struct {
	f   catalog.Field
	val string // "" = unset
}

func newChoiceEditor(f catalog.Field) *choiceEditor { return &choiceEditor{f: f} }

func (e *choiceEditor) SetField(f catalog.Field) { e.f = f }
func (e *choiceEditor) Focus() tea.Cmd           { return nil }
func (e *choiceEditor) Blur()                    {}

// options are what ←/→ walk; unset is reached with backspace.
func (e *choiceEditor) options() []string {
	if e.f.Kind == catalog.KindBool {
		return []string{"true", "false"}
	}
	return e.f.Options
}

// effective is the option in force: the value, else the default.
func (e *choiceEditor) effective() string {
	if e.val != "" {
		return e.val
	}
	if e.f.Default != nil {
		return catalog.FormatValue(e.f.Default)
	}
	return ""
}

func (e *choiceEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	c := e.options()
	if len(c) == 0 {
		return nil, false
	}
	at := slices.Index(c, e.effective())
	before := e.val
	switch k.String() {
	case "right", "l", "space":
		e.val = c[(at+1)%len(c)]
	case "left", "h":
		if at < 0 {
			at = 0
		}
		e.val = c[(at-1+len(c))%len(c)]
	case "backspace", "delete":
		if !e.f.Required {
			e.val = ""
		}
	default:
		// A letter or digit jumps to the next option starting with it.
		if t := k.Text; t != "" && e.f.Name != "model" {
			for i := 1; i <= len(c); i++ {
				o := c[(max(at, 0)+i)%len(c)]
				if strings.HasPrefix(strings.ToLower(e.label(o)), strings.ToLower(t)) {
					e.val = o
					break
				}
			}
		}
	}
	return nil, e.val != before
}

func (e *choiceEditor) OwnsKey(tea.KeyPressMsg) bool { return false }

// label is how an option reads: flags as yes and no.
func (e *choiceEditor) label(o string) string {
	if e.f.Kind == catalog.KindBool {
		switch o {
		case "true":
			return "yes"
		case "false":
			return "no"
		}
	}
	return o
}

func (e *choiceEditor) Value() any {
	if e.val == "" {
		return nil
	}
	if e.f.Kind == catalog.KindBool {
		switch e.val {
		case "true":
			return true
		case "false":
			return false
		}
	}
	return e.val
}

func (e *choiceEditor) Set(v any) {
	switch x := v.(type) {
	case nil:
		e.val = ""
	case bool:
		e.val = strconv.FormatBool(x)
	case string:
		e.val = x
	default:
		e.val = catalog.FormatValue(x)
	}
}

func (e *choiceEditor) Counter() string { return "" }

var (
	chooseKey  = key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "choose"))
	defaultKey = key.NewBinding(key.WithKeys("backspace"), key.WithHelp("⌫", "back to default"))
)

func (e *choiceEditor) Keys() []key.Binding {
	if e.f.Required {
		return []key.Binding{chooseKey}
	}
	return []key.Binding{chooseKey, defaultKey}
}

// allowed reports whether the value is one the field offers.
func (e *choiceEditor) allowed() bool {
	return e.val == "" || slices.Contains(e.options(), e.val)
}

// View shows every option with the one in force bracketed: styled as a
// default while unset, flagged when the model does not offer the value.
func (e *choiceEditor) View(s *Styles, width int, focused bool) string {
	eff := e.effective()
	var parts []string
	if !e.allowed() {
		parts = append(parts, s.Error.Reverse(true).Render(e.val))
	}
	for _, o := range e.options() {
		l := e.label(o)
		switch {
		case o == eff && e.val == "":
			parts = append(parts, s.Default.Render("["+l+"]"))
		case o == eff && focused:
			parts = append(parts, s.Selected.Render("["+l+"]"))
		case o == eff:
			parts = append(parts, s.Value.Bold(true).Render("["+l+"]"))
		default:
			parts = append(parts, s.Dim.Render(" "+l+" "))
		}
	}
	tail := ""
	switch {
	case e.val == "" && eff != "":
		tail = s.Default.Render("default")
	case e.val == "" && !e.f.Required:
		tail = s.Default.Render("not set: the service decides")
	case e.val == "":
		tail = s.Error.Render("choose one")
	}
	line := strings.Join(parts, " ")
	if tail != "" {
		line += "  " + tail
	}
	if lipgloss.Width(line) <= width {
		return line
	}
	// Too many to show at once (languages): the one in force and where it is.
	pos := slices.Index(e.options(), eff) + 1
	st := s.Value.Bold(true)
	switch {
	case !e.allowed():
		st = s.Error.Reverse(true)
		eff = e.val
	case e.val == "":
		st = s.Default
	case focused:
		st = s.Selected
	}
	shown := e.label(eff)
	if shown == "" {
		shown = "not set"
	}
	hint := "  %d of %d · ←/→"
	if e.f.Name != "model" && len(e.options()) > 0 && unicode.IsLetter([]rune(e.options()[0])[0]) {
		hint = "  %d of %d · ←/→ or type a letter"
	}
	return st.Render("‹ "+shown+" ›") + s.Dim.Render(fmt.Sprintf(hint, pos, len(e.options())))
}
