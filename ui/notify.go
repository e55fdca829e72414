package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/record"
)

// A task that finishes while the user looks elsewhere (another page, the
// list with another row selected, the detail of another task) is announced:
// a note on the status line, the terminal's own notification where it has
// one, and the bell. A task the user is looking at needs none of them.

// notifyStyle is how the terminal shows a notification.
type notifyStyle uint8

const (
	notifyBellOnly notifyStyle = iota // the terminal has no notification known to clapper
	notifyOSC9                        // iTerm2, WezTerm, Windows Terminal, Ghostty, kitty
	notifyOSC777                      // VTE terminals (GNOME Terminal, Tilix), foot, urxvt
)

// detectNotify picks the notification sequence the terminal understands from
// its environment; an unknown terminal gets the bell alone, never a sequence
// it might print. Pass os.Getenv.
func detectNotify(getenv func(string) string) notifyStyle {
	term, prog := getenv("TERM"), getenv("TERM_PROGRAM")
	switch {
	case strings.HasPrefix(term, "screen"), strings.HasPrefix(term, "tmux"), prog == "tmux":
		// A multiplexer drops what it does not pass through.
		return notifyBellOnly
	case prog == "iTerm.app", prog == "WezTerm", prog == "ghostty", term == "xterm-ghostty",
		term == "xterm-kitty", getenv("WT_SESSION") != "":
		return notifyOSC9
	case getenv("VTE_VERSION") != "", strings.HasPrefix(term, "foot"), strings.HasPrefix(term, "rxvt"):
		return notifyOSC777
	}
	return notifyBellOnly
}

// notification is what the terminal is sent for one finished task: the
// notification sequence where the terminal has one, then the bell. The text
// is cleaned first: it comes from history and may hold anything.
func notification(style notifyStyle, title, body string) string {
	title, body = notifyText(title), notifyText(body)
	switch style {
	case notifyOSC9:
		return ansi.Notify(title+": "+body) + "\a"
	case notifyOSC777:
		return ansi.URxvtExt("notify", title, body) + "\a"
	}
	return "\a"
}

// notifyText is a line safe inside an OSC string: no control characters and
// no ';' that would split OSC 777's fields.
func notifyText(s string) string {
	return strings.ReplaceAll(api.CleanLine(s), ";", ",")
}

// finishedNote is the status line's and the notification's words for a task
// that finished.
func finishedNote(t record.Task) string {
	what := opLabel(t.Operation)
	if s := strings.TrimSpace(api.CleanLine(t.Prompt)); s != "" {
		what += " “" + s + "”"
	}
	switch t.State {
	case api.StateSuccess:
		return what + " is done"
	case api.StateFailed:
		if t.ErrCode != "" {
			return what + " failed: " + api.CleanLine(t.ErrCode)
		}
		return what + " failed"
	}
	return what + " is " + stateLabel(t.State)
}

// looksAt reports whether the user has the task in front of them: its
// detail open, or its row selected on the Tasks page on screen (its cell
// on its set's sheet: onItsSheet).
func (m *Model) looksAt(taskID string) bool {
	if m.detail() != nil {
		return m.detail().task != nil && m.detail().task.TaskID == taskID
	}
	if m.active != pageTasks || m.showHelp || m.front() != nil {
		return false // the list is not on screen: a sheet covers it
	}
	row, ok := m.pages[pageTasks].(*tasksPage).win.selected()
	return ok && row.TaskID == taskID
}

// onItsSheet reports whether the user looks at the contact sheet of the
// task's set: its cell there shows the task finish.
func (m *Model) onItsSheet(t record.Task) bool {
	c, ok := m.front().(*contactSheet)
	return ok && !m.showHelp && t.SetID != 0 && c.setID == t.SetID
}

// announce tells of a task that finished while the user looked elsewhere.
func (m *Model) announce(t record.Task) tea.Cmd {
	if m.onItsSheet(t) {
		return nil
	}
	note := finishedNote(t)
	status := func() tea.Msg { return statusMsg{text: note, bad: t.State != api.StateSuccess} }
	// Tasks found finished together (a return after a long absence) ring
	// once: the status line keeps the latest, the Tasks page lists them all.
	now := m.env.now()
	if !m.notified.IsZero() && now.Sub(m.notified) < notifyQuiet {
		return status
	}
	m.notified = now
	return tea.Batch(status, tea.Raw(notification(m.notify, "clapper", note)))
}

// notifyQuiet is how long after one notification the next stays silent.
const notifyQuiet = 3 * time.Second

// windowTitle counts what is in flight, so a terminal tab tells it.
func (m *Model) windowTitle() string {
	if !m.statsLoaded || m.running+m.queued == 0 {
		return "clapper"
	}
	var parts []string
	if m.running > 0 {
		parts = append(parts, fmt.Sprintf("%d running", m.running))
	}
	if m.queued > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", m.queued))
	}
	return "clapper · " + strings.Join(parts, " · ")
}
