package ui

import (
	"reflect"
	"strings"

	tea "charm.land/bubbletea/v2"

	"clapper/forms"
)

// Routing. A message the root knows by its type goes where route or
// update says. Every other message (the forms', the text inputs', huh's)
// comes back from a child's command: the root wraps each command it gets
// from a child (own) so that its messages come back addressed to that
// child, as gh-dash wraps a component's replies with its id. Nothing is
// broadcast to every page; an unaddressed message goes to the screen in
// front.

// owner is who a message goes back to: a page by its index, or an overlay.
type owner int

const (
	ownerNone   owner = -1
	ownerDetail owner = 100 + iota
	ownerSheet
)

// owned is a message of a child's command, addressed back to the child.
type owned struct {
	to  owner
	msg tea.Msg
}

// own addresses the messages of cmd back to to (ownCmd); the screen tests
// put a hand on it to keep a text cursor's blink, a real timer, recognisable.
var own func(to owner, cmd tea.Cmd) tea.Cmd

func init() { own = ownCmd }

// ownCmd addresses the messages of cmd back to to. Bubble Tea's own
// messages (quitting, running $EDITOR, batches and sequences of commands)
// are left for the runtime, a batch's commands each wrapped in turn; a
// bubbles component's (a cursor's blink) carries its own id and goes to
// what is in front, where the focus is.
func ownCmd(to owner, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		msg := cmd()
		switch msg := msg.(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			for i, c := range msg {
				msg[i] = own(to, c)
			}
			return msg
		}
		if pkg := reflect.TypeOf(msg).PkgPath(); strings.HasPrefix(pkg, "charm.land/bubbletea/") || strings.HasPrefix(pkg, "charm.land/bubbles/") {
			return msg
		}
		return owned{to: to, msg: msg}
	}
}

// toPage hands page i a message; what its command answers comes back to it.
func (m *Model) toPage(i int, msg tea.Msg) tea.Cmd {
	return own(owner(i), m.pages[i].Update(msg))
}

func (m *Model) toDetail(msg tea.Msg) tea.Cmd {
	if m.detail() == nil {
		return nil
	}
	return own(ownerDetail, m.detail().Update(msg))
}

func (m *Model) toSheet(msg tea.Msg) tea.Cmd {
	if m.sheet() == nil {
		return nil
	}
	return own(ownerSheet, m.sheet().Update(msg))
}

// toDialog hands the open dialog a message; its answers go back to whoever
// opened it.
func (m *Model) toDialog(msg tea.Msg) tea.Cmd {
	d := m.dialog()
	if d == nil {
		return nil
	}
	from := m.stack[len(m.stack)-1].from
	cmd, done := d.Update(msg)
	if done && m.dialog() == d {
		m.closeDialog()
	}
	return own(from, cmd)
}

// toScreen hands a message to the screen in front.
func (m *Model) toScreen(msg tea.Msg) tea.Cmd {
	switch m.front().(type) {
	case *detailModel:
		return m.toDetail(msg)
	case *contactSheet:
		return m.toSheet(msg)
	}
	return m.toPage(m.active, msg)
}

// toOwner hands a message back to the child whose command made it (a
// closed overlay's is dropped); one addressed to nobody goes to what is in
// front, the open dialog first.
func (m *Model) toOwner(to owner, msg tea.Msg) tea.Cmd {
	switch to {
	case ownerNone:
		if m.dialog() != nil {
			return m.toDialog(msg)
		}
		return m.toScreen(msg)
	case ownerDetail:
		return m.toDetail(msg)
	case ownerSheet:
		return m.toSheet(msg)
	}
	return m.toPage(int(to), msg)
}

// route hands a data message to the screen it is for: by its type when
// the root knows it, else back to its owner (from), else to the screen in
// front.
func (m *Model) route(msg tea.Msg, from owner) tea.Cmd {
	switch msg := msg.(type) {
	case windowLoadedMsg:
		for _, i := range []int{pageTasks, pageHistory} {
			if m.pages[i].(interface{ window() *taskWindow }).window() == msg.win {
				cmd := m.toPage(i, msg)
				if i == pageTasks && m.afterFirstRows != nil {
					// The frame with the rows is drawn within two of our
					// frames (frameInterval).
					cmd = tea.Batch(cmd, m.env.timers.after(frameInterval, rowsDrawnMsg{then: m.afterFirstRows}))
					m.afterFirstRows = nil
				}
				return cmd
			}
		}
		return nil // a list replaced since it asked
	case unknownLoadedMsg, selectTaskMsg:
		return m.toPage(pageTasks, msg)
	case historyTotalsMsg:
		return m.toPage(pageHistory, msg)
	case jobsLoadedMsg, sceneJobLoadedMsg, sceneThumbMsg, sceneNudgeMsg, sceneEditorClosedMsg, scenePromptDiscardedMsg, sceneSentMsg, composedSavedMsg:
		return m.toPage(pageScenes, msg)
	case voicesLoadedMsg, voiceReminderMsg, subjectsLoadedMsg:
		return m.toPage(pageVoices, msg)
	case draftsFoundMsg, voicesForFormMsg, draftLoadedMsg, draftSavedMsg, discardDraftMsg, draftDiscardedMsg, sentMsg:
		return m.toPage(pageNew, msg)
	case detailLoadedMsg, previewLoadedMsg:
		return m.toDetail(msg)
	case dialogVerifiedMsg:
		// An open dialog's own answers (a check, a folder listing) are
		// its, whoever opened it.
		if msg.d == m.dialog() {
			return m.toDialog(msg)
		}
		return nil
	case forms.PathsListedMsg:
		if d, ok := m.dialog().(*inputDialog); ok && d.paths != nil && msg.For(d.paths) {
			return m.toDialog(msg)
		}
	}
	return m.toOwner(from, msg)
}
