package ui

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/forms"
	"clapper/internal/textutil"
)

// dialog is a small window over everything; while one is open it takes
// every key. Update reports done when the dialog closes itself.
type dialog interface {
	Update(msg tea.Msg) (cmd tea.Cmd, done bool)
	View(th *Theme, width int) string
}

var dialogKeys = struct{ Yes, No, Submit, Cancel key.Binding }{
	Yes:    key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y/enter", "yes")),
	No:     key.NewBinding(key.WithKeys("n", "esc", "q"), key.WithHelp("n/esc", "no")),
	Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "ok")),
	Cancel: key.NewBinding(key.WithKeys("esc", "ctrl+c"), key.WithHelp("esc", "cancel")),
}

// confirmDialog asks a yes/no question; yes runs onYes.
type confirmDialog struct {
	title, body string
	onYes       tea.Cmd
}

func (d *confirmDialog) Update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, dialogKeys.Yes):
		return d.onYes, true
	case key.Matches(k, dialogKeys.No), k.String() == "ctrl+c":
		return nil, true
	}
	return nil, false
}

func (d *confirmDialog) View(th *Theme, width int) string {
	w := min(width-4, 64)
	body := th.Strong.Render(d.title) + "\n\n" + wrap(d.body, w-4) + "\n\n" +
		th.Key.Render("y") + th.Dim.Render(" yes   ") + th.Key.Render("n") + th.Dim.Render(" no")
	return th.Box.Width(w).Render(body)
}

// messageLog is the latest status line messages, oldest first: one shown
// for a moment (a save of the settings refused while a task's notice came
// in) is not lost to the next.
type messageLog []loggedMessage

type loggedMessage struct {
	text string
	bad  bool
	at   time.Time
}

// keptMessages is how many ! shows: four of three lines each fit 80x24.
const keptMessages = 4

func (l *messageLog) add(text string, bad bool, at time.Time) {
	*l = append(*l, loggedMessage{text: text, bad: bad, at: at})
	if len(*l) > keptMessages {
		*l = slices.Clone((*l)[len(*l)-keptMessages:])
	}
}

// messageDialog shows the latest status line messages in full (!),
// newest first: a reason cut at the screen's edge is one key away.
type messageDialog struct {
	log messageLog
	// height is the screen's: older messages that would not fit are left
	// out, the newest never.
	height int
}

func (d *messageDialog) Update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	return nil, key.Matches(k, dialogKeys.Submit, dialogKeys.Cancel) || k.String() == "!" || k.String() == "q"
}

func (d *messageDialog) View(th *Theme, width int) string {
	w := min(width-4, 72)
	title, text := "Last message", th.Dim.Render("No message yet.")
	if len(d.log) > 1 {
		title = "Last messages, newest first"
	}
	var entries []string
	lines := 6 // the title, the closing hint, the border and their gaps
	for _, e := range slices.Backward(d.log) {
		style := th.Success
		if e.bad {
			style = th.Error
		}
		at := e.at.Local().Format("15:04") + " "
		entry := lipgloss.JoinHorizontal(lipgloss.Top, th.Dim.Render(at), style.Render(wrap(e.text, w-4-len(at))))
		if lines += lipgloss.Height(entry) + 1; len(entries) > 0 && lines > d.height {
			break
		}
		entries = append(entries, entry)
	}
	if len(entries) > 0 {
		text = strings.Join(entries, "\n\n")
	}
	body := th.Strong.Render(title) + "\n\n" + text + "\n\n" +
		th.Key.Render("enter") + th.Dim.Render(" or ") + th.Key.Render("esc") + th.Dim.Render(" closes")
	return th.Box.Width(w).Render(body)
}

// inputDialog asks for one line of text; what the user typed stays when
// the check fails, with the reason under it.
type inputDialog struct {
	title, hint string
	input       textinput.Model
	check       func(string) error
	onSubmit    func(string) tea.Cmd
	problem     string
	// paths, when set, completes the local paths typed with tab, as every
	// path field does (forms.PathCompleter).
	paths *forms.PathCompleter
	// verify, when set, checks the text in a command (it reads files):
	// the dialog stays open, with what was typed, until it answers.
	verify    func(string) error
	verifying bool
}

// dialogVerifiedMsg is verify's answer for the dialog d.
type dialogVerifiedMsg struct {
	d     *inputDialog
	value string
	err   error
}

func newInputDialog(th *Theme, title, hint, placeholder string, check func(string) error, onSubmit func(string) tea.Cmd) *inputDialog {
	in := textinput.New()
	in.Placeholder = placeholder
	in.Prompt = "› "
	in.SetStyles(textinput.DefaultStyles(th.Dark))
	in.Focus()
	return &inputDialog{title: title, hint: hint, input: in, check: check, onSubmit: onSubmit}
}

func (d *inputDialog) Update(msg tea.Msg) (tea.Cmd, bool) {
	if d.paths != nil {
		if text, cmd, changed, ok := d.paths.Take(msg, d.input.Value()); ok {
			if changed {
				d.input.SetValue(text)
				d.input.CursorEnd()
			}
			return cmd, false
		}
	}
	switch msg := msg.(type) {
	case dialogVerifiedMsg:
		if msg.d != d || msg.value != strings.TrimSpace(d.input.Value()) {
			return nil, false // an answer for a text since changed
		}
		d.verifying = false
		if msg.err != nil {
			d.problem = msg.err.Error()
			return nil, false
		}
		return d.onSubmit(msg.value), true
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, dialogKeys.Cancel):
			return nil, true
		case key.Matches(msg, dialogKeys.Submit):
			v := strings.TrimSpace(d.input.Value())
			if d.check != nil {
				if err := d.check(v); err != nil {
					d.problem = err.Error()
					return nil, false
				}
			}
			if d.verify != nil {
				d.verifying, d.problem = true, ""
				verify := d.verify
				return func() tea.Msg { return dialogVerifiedMsg{d: d, value: v, err: verify(v)} }, false
			}
			return d.onSubmit(v), true
		case msg.String() == "tab" && d.paths != nil:
			text, cmd := d.paths.Tab(d.input.Value())
			d.input.SetValue(text)
			d.input.CursorEnd()
			return cmd, false
		}
	}
	before := d.input.Value()
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	if d.input.Value() != before {
		d.problem = ""
		if d.paths != nil {
			cmd = tea.Batch(cmd, d.paths.Changed(d.input.Value()))
		}
	}
	return cmd, false
}

func (d *inputDialog) View(th *Theme, width int) string {
	w := min(width-4, 70)
	d.input.SetWidth(w - 8)
	body := th.Strong.Render(d.title) + "\n" + th.Dim.Render(wrap(d.hint, w-4)) + "\n\n" + d.input.View()
	if d.paths != nil {
		if hint := d.paths.Hint(w - 4); hint != "" {
			body += "\n" + th.Dim.Render(hint)
		}
	}
	switch {
	case d.verifying:
		body += "\n" + th.Dim.Render("checking…")
	case d.problem != "":
		body += "\n" + th.Error.Render(wrap(d.problem, w-4))
	}
	body += "\n\n" + th.Key.Render("enter") + th.Dim.Render(" ok   ") + th.Key.Render("esc") + th.Dim.Render(" cancel")
	return th.Box.Width(w).Render(body)
}

// wrap folds text to w cells on word boundaries.
func wrap(s string, w int) string {
	// Wrapped at spaces only: a model name (svcq3-turbo) is never split.
	return textutil.ReleaseHyphens(lipgloss.NewStyle().Width(max(w, 10)).Render(textutil.HoldHyphens(s)))
}
