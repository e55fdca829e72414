package forms

// The form's own keys, the messages they send the page, and the help
// that lists what works where the cursor is.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
)

// Keys the form handles itself.
type keyMap struct {
	Next, Prev, Review, Leave, Toggle, Remove, Pick, Reference, Recall, Prompts key.Binding
}

var keys = keyMap{
	// ↑/↓ move a row at a time in every field (a list's items, a text's
	// lines, a subject's parts) and on to the next field past the last;
	// tab and shift+tab move a whole field.
	Next:      key.NewBinding(key.WithKeys("tab", "down", "enter"), key.WithHelp("tab/↓", "next field/row")),
	Prev:      key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field/row")),
	Review:    key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "review & send")),
	Leave:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "operations (form kept)")),
	Toggle:    key.NewBinding(key.WithKeys("enter", "space", "right", "left"), key.WithHelp("enter", "open/close")),
	Remove:    key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "remove value")),
	Pick:      key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "pick a file")),
	Reference: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "insert [@subject]")),
	Recall:    key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "fill with the last sent")),
	Prompts:   key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "earlier prompts")),
}

// LeaveMsg asks the page to go back to the operations; the form is kept.
type LeaveMsg struct{}

// RecallMsg is ctrl+p: it asks the page for earlier prompts to put into
// Field (holding Text now), the operation's last sent request among them;
// with Field "" (the model takes no prompt) for the last sent request.
type RecallMsg struct {
	Op          api.Operation
	Field, Text string
}

// OfferRecall tells the form its operation has a last sent request (ctrl+p).
func (f *Form) OfferRecall(ok bool) { f.recall = ok }

// promptFields are the free texts whose earlier values ctrl+p searches.
var promptFields = []string{"prompt", "text"}

// PromptField names the field ctrl+p fills with an earlier prompt: the
// focused one when it is a prompt field, else the form's first; "" when
// the model takes none.
func (f *Form) PromptField() string {
	if slices.Contains(promptFields, f.focusedName()) {
		return f.focusedName()
	}
	for _, r := range f.rows {
		if r.kind == rowField && slices.Contains(promptFields, r.name) {
			return r.name
		}
	}
	return ""
}

// recallKey is ctrl+p as it works on this form, nil when it does nothing.
func (f *Form) recallKey() *key.Binding {
	switch {
	case f.PromptField() != "":
		return &keys.Prompts
	case f.recall:
		return &keys.Recall
	}
	return nil
}

// recallMsg is what ctrl+p asks the page for.
func (f *Form) recallMsg() tea.Msg {
	field := f.PromptField()
	text := ""
	if field != "" {
		text, _ = f.editors[field].Value().(string)
	}
	return RecallMsg{Op: f.op, Field: field, Text: text}
}

// explainIdle says why a key that writes or removes did nothing where the
// cursor is, with the keys that work there: no keystroke is lost silently.
func (f *Form) explainIdle(k tea.KeyPressMsg) {
	// An editor may know better why (a list refusing a missing file).
	if x, ok := f.focused().(interface{ idle(tea.KeyPressMsg) string }); ok {
		if f.hint = x.idle(k); f.hint != "" {
			return
		}
	}
	if k.Text == "" && k.String() != "ctrl+d" {
		return // a move at an edge, a key with no use: nothing was lost
	}
	name := strings.ReplaceAll(f.focusedName(), "_", " ")
	what := "this row"
	if name != "" {
		what = name
	}
	var works []string
	for _, b := range f.FullHelp()[0] {
		works = append(works, b.Help().Key+" "+b.Help().Desc)
	}
	if len(works) == 0 {
		works = []string{keys.Next.Help().Key + " " + keys.Next.Help().Desc}
	}
	f.hint = fmt.Sprintf("%s does nothing in %s · %s", keyName(k), what, strings.Join(works, " · "))
}

// keyName is a key as the help writes it.
func keyName(k tea.KeyPressMsg) string {
	if k.Text != "" && k.Text != " " {
		return strconv.Quote(k.Text)
	}
	return k.String()
}

// ShortHelp is the help line: the focused field's first keys, then
// review and leave; FullHelp has every key that works now.
func (f *Form) ShortHelp() []key.Binding {
	groups := f.FullHelp()
	if f.mode != modeEdit {
		return groups[0]
	}
	own := groups[0]
	// A fresh form in its prompt, or with a last sent request: earlier
	// prompts and the last sent request lead the line (once).
	k := f.recallKey()
	lead := k != nil && f.Blank() && (f.recall || slices.Contains(promptFields, f.focusedName()))
	if lead {
		own = slices.DeleteFunc(slices.Clone(own), func(b key.Binding) bool { return b.Help() == k.Help() })
	}
	if len(own) > 2 {
		own = own[:2]
	}
	if lead {
		own = append([]key.Binding{*k}, own[:min(len(own), 1)]...)
	}
	return append(slices.Clip(own), keys.Review, keys.Leave)
}

func (f *Form) FullHelp() [][]key.Binding {
	switch f.mode {
	case modeReview:
		return [][]key.Binding{f.reviewKeys()}
	case modePicker:
		return [][]key.Binding{{pickerChoose, pickerUp, pickerFilter, pickerEnds, pickerBack}}
	case modeReference:
		return [][]key.Binding{{insertKey, pickerBack}}
	}
	var own []key.Binding
	if e := f.focused(); e != nil {
		own = append(own, e.Keys()...)
		if x, ok := e.(interface{ keysElsewhere() []key.Binding }); ok {
			own = append(own, x.keysElsewhere()...)
		}
	}
	if f.rows[f.focus].stray {
		own = append(own, keys.Remove)
	}
	if f.focusedName() == "prompt" && len(f.subjectNames()) > 0 {
		own = append(own, keys.Reference)
	}
	if f.rows[f.focus].kind == rowAdvanced {
		own = append(own, keys.Toggle)
	}
	if k := f.recallKey(); k != nil {
		own = append(own, *k)
	}
	return [][]key.Binding{own, {keys.Next, keys.Prev, keys.Review, keys.Leave}}
}
