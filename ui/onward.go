package ui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
	"clapper/studio"
)

// Sending a result onward (s in the detail, and from any screen by
// onwardMsg): the root reads what the task gives (studio.OnwardFrom: the
// result URL while it stays valid, else the saved file, or a cloned voice),
// lists the places the catalog says take it, and the New page opens the
// chosen operation's form with the field filled. The places come from the
// catalog's field kinds (catalog.Targets), never from a list here.

type (
	// onwardMsg asks the root to send a task's result onward: any screen
	// showing a result (the detail, the contact sheet) sends it.
	onwardMsg struct{ LocalID int64 }
	// onwardReadMsg is what a task gives to send onward, or why nothing.
	onwardReadMsg struct {
		src studio.Onward
		err error
		// byCreation: the video has neither a live URL nor a saved file,
		// only its creation id, which extend and upscale-new take.
		byCreation bool
	}
	// onwardChosenMsg: the user picked where the result goes.
	onwardChosenMsg struct {
		src    studio.Onward
		target catalog.Target
	}
)

// readOnward reads what a task gives to send onward, in a command.
func readOnward(e *env, localID int64) tea.Cmd {
	ctx, s, store, now := e.ctx, e.studio, e.store(), e.now()
	return func() tea.Msg {
		src, err := s.OnwardFrom(ctx, localID, now)
		var nothing *studio.NothingOnwardError
		if errors.As(err, &nothing) {
			if t, terr := store.Task(ctx, localID); terr == nil && isFinishedVideo(&t) && creationID(t) != "" {
				why := "its video's creation id (its URL lapsed and no file was saved: only these take it)"
				return onwardReadMsg{src: studio.Onward{Task: t, Output: catalog.OutputVideo, Why: why}, byCreation: true}
			}
		}
		return onwardReadMsg{src: src, err: err}
	}
}

// onwardTargets are the places a result can go: a saved file cannot go to
// a field that takes only a URL the service fetches.
func onwardTargets(src studio.Onward) []catalog.Target {
	var ts []catalog.Target
	for _, t := range withCreationTargets(src, catalog.Targets(src.Output)) {
		if !(t.URLOnly && src.FromFile) {
			ts = append(ts, t)
		}
	}
	return ts
}

// openOnward answers onwardReadMsg: the picker for a screen of screenH
// lines, or why there is none.
func openOnward(msg onwardReadMsg, screenH int) (dialog, tea.Cmd) {
	if msg.err != nil {
		return nil, statusErrText(api.CleanLine(msg.err.Error()))
	}
	ts := onwardTargets(msg.src)
	if msg.byCreation {
		ts = creationTargets()
	}
	if len(ts) == 0 {
		return nil, statusErrText(fmt.Sprintf("no operation takes %s from a saved file; the result URL has lapsed", msg.src.Output))
	}
	p := newOnwardPicker(msg.src, ts)
	p.screenH = screenH
	return p, nil
}

type onwardKeys struct {
	Up, Down, Choose, Cancel key.Binding
}

func newOnwardKeys() onwardKeys {
	return onwardKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open its form")),
		Cancel: key.NewBinding(key.WithKeys("esc", "q", "ctrl+c"), key.WithHelp("esc", "cancel")),
	}
}

func (k onwardKeys) ShortHelp() []key.Binding { return []key.Binding{k.Up, k.Down, k.Choose, k.Cancel} }

// Name titles the help while these keys are in force.
func (k onwardKeys) Name() string { return "send onward" }

func (k onwardKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// onwardPicker lists where a result can go, one "operation → field" a row,
// in people's words beside the wire names.
type onwardPicker struct {
	keys    onwardKeys
	src     studio.Onward
	targets []catalog.Target
	cursor  int
	// screenH is the terminal's height: the rows shown are as many as
	// fit in it (the root sets it on a resize).
	screenH int
}

// pickerChrome is the picker's lines around its rows: the border, title,
// what is sent, the keys and two blank lines; pickerMargin keeps a line of
// the screen above and below the box.
const pickerChrome, pickerMargin = 7, 2

// rowsShown is how many targets the picker lists at once: every one when
// the screen holds them, else a window around the cursor, never under 3.
func (d *onwardPicker) rowsShown() int {
	return min(len(d.targets), max(d.screenH-pickerChrome-pickerMargin, 3))
}

func newOnwardPicker(src studio.Onward, ts []catalog.Target) *onwardPicker {
	return &onwardPicker{keys: newOnwardKeys(), src: src, targets: ts}
}

func (d *onwardPicker) Update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, d.keys.Up):
		d.cursor = (d.cursor + len(d.targets) - 1) % len(d.targets)
	case key.Matches(k, d.keys.Down):
		d.cursor = (d.cursor + 1) % len(d.targets)
	case key.Matches(k, d.keys.Choose):
		chosen := onwardChosenMsg{src: d.src, target: d.targets[d.cursor]}
		if c, ok := sendByCreation(d.src.Task, chosen.target.Operation); ok && chosen.target.Field == creationField {
			chosen = c
		}
		return func() tea.Msg { return chosen }, true
	case key.Matches(k, d.keys.Cancel):
		return nil, true
	}
	return nil, false
}

// onwardRow is one target in people's words, with the wire names after.
func onwardRow(t catalog.Target) (people, wire string) {
	return catalog.Info(t.Operation).Name + " → " + t.Name, string(t.Operation) + " " + t.Label()
}

func (d *onwardPicker) View(th *Theme, width int) string {
	w := min(width-4, 96)
	t := d.src.Task
	title := fmt.Sprintf("Send %s of #%d (%s) onward", d.src.Output, t.LocalID, t.Operation)
	from := "sends " + textutil.Fit(api.CleanLine(d.src.Why), w-10)
	// Rows are windowed around the cursor when the screen is too short:
	// an image has over a dozen places.
	rows := d.rowsShown()
	first := min(max(d.cursor-rows/2, 0), len(d.targets)-rows)
	var b strings.Builder
	b.WriteString(th.Strong.Render(textutil.Fit(title, w-4)) + "\n" + th.Dim.Render(from) + "\n\n")
	for i := first; i < first+rows; i++ {
		people, wire := onwardRow(d.targets[i])
		mark, st := "  ", th.Strong.Bold(false)
		if i == d.cursor {
			mark, st = "› ", th.Selected
		}
		// On a narrow screen the wire name gives way too: a row is one line.
		wire = textutil.Truncate(wire, max(w-4-2-1-16, 8))
		line := textutil.Fit(people, max(w-4-2-1-lipgloss.Width(wire), 8))
		pad := max(w-4-2-lipgloss.Width(line)-lipgloss.Width(wire), 1)
		b.WriteString(mark + st.Render(line) + strings.Repeat(" ", pad) + th.Dim.Render(wire) + "\n")
	}
	// Where the cursor is among the places, on the line above the keys
	// (beside them it would wrap at 60 columns).
	if len(d.targets) > rows {
		b.WriteString(th.Dim.Render(fmt.Sprintf("  %d of %d", d.cursor+1, len(d.targets))))
	}
	b.WriteString("\n" + th.Key.Render("↑/↓") + th.Dim.Render(" choose   ") + th.Key.Render("enter") +
		th.Dim.Render(" open its form   ") + th.Key.Render("esc") + th.Dim.Render(" cancel"))
	return th.Box.Width(w).Render(b.String())
}
