package ui

// The root's navigation: what opens, closes or moves between screens. The
// root only routes; each screen is its own model.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"clapper/studio"
)

// onNavigation takes the messages of what opens, closes or moves between
// screens; ok is false for any other.
func (m *Model) onNavigation(msg tea.Msg, from owner) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case openDetailMsg:
		switch {
		case msg.chain && m.detail() != nil:
			m.detailBack = append(m.detailBack, m.detail().localID)
		case !msg.chain:
			m.detailBack = nil
		}
		return m.showDetail(msg.localID), true
	case openDialogMsg:
		// What the dialog answers is an action for whoever opened it.
		m.openDialog(msg.d, from)
		return nil, true
	case dialogReadMsg:
		return m.readDialog(msg.read, from), true
	case dialogReadDoneMsg:
		return tea.Batch(m.update(msg.msg), m.release()), true
	case openSheetMsg, sheetLoadedMsg, sheetThumbMsg, sheetChangedMsg:
		return m.onSheetMsg(msg), true
	case variationsSentMsg:
		// As after one send, the Tasks page is under the set's sheet: esc
		// from the sheet lands in the list, not in the form's prompt,
		// where the next keys would be typed.
		return tea.Batch(m.toPage(pageNew, msg), m.mark(changedTasks), m.switchTo(pageTasks), m.openSheet(msg.setID),
			status(fmt.Sprintf("%s: %d versions sent as set %d; at most %d at the service at once", msg.op, msg.count, msg.setID, studio.SetSlots))), true
	case switchPageMsg:
		return m.switchTo(msg.page), true
	case createdMsg:
		return m.onCreated(msg), true
	case duplicateMsg:
		msg.from = m.active
		return tea.Batch(m.toPage(pageNew, msg), m.switchTo(pageNew)), true
	case newFormMsg:
		return tea.Batch(m.toPage(pageNew, msg), m.switchTo(pageNew)), true
	case onwardMsg:
		return m.readDialog(readOnward(m.env, msg.LocalID), ownerNone), true
	case sourceVideoMsg:
		return readSourceVideo(m.env, msg), true
	case onwardReadMsg:
		d, cmd := openOnward(msg, m.height)
		if d != nil {
			m.openDialog(d, ownerNone) // its choice is the root's (onwardChosenMsg)
		}
		return cmd, true
	case onwardChosenMsg:
		return tea.Batch(m.toPage(pageNew, msg), m.switchTo(pageNew)), true
	}
	return nil, false
}

// onCreated shows a task just sent on the Tasks page (and its detail when
// asked).
func (m *Model) onCreated(msg createdMsg) tea.Cmd {
	// The Tasks page reads its list afresh to show the new task; the
	// header and the other lists learn of it by marks. The watcher does
	// not report our own sends back, and a clone or a synthesis is final
	// at once, so its voice change is marked here.
	what := changedTasks
	if changesVoices(msg.op) {
		what |= changedVoices
	}
	cmds := []tea.Cmd{m.mark(what)}
	m.stale[pageTasks] = rereadNone
	cmds = append(cmds, m.switchTo(pageTasks), m.toPage(pageTasks, selectTaskMsg{msg.localID}))
	if msg.openDetail {
		id := msg.localID
		cmds = append(cmds, func() tea.Msg { return openDetailMsg{localID: id} })
	}
	return tea.Batch(cmds...)
}

func (m *Model) switchTo(i int) tea.Cmd {
	if i < 0 || i >= len(m.pages) {
		return nil
	}
	cmd := m.closeDetail()
	m.detailBack = nil
	m.dropSheet()
	m.showHelp = false
	m.active = i
	return tea.Batch(cmd, m.refreshShown())
}

// showDetail shows task localID's detail in place of the one shown.
func (m *Model) showDetail(localID int64) tea.Cmd {
	free := m.closeDetail()
	d := newDetailModel(m.env, localID)
	m.detailStale = false
	m.push(layer{screen: d})
	return tea.Batch(free, d.Init())
}

// closeDetail leaves the detail, freeing its kitty image in the terminal.
func (m *Model) closeDetail() tea.Cmd {
	d := m.detail()
	m.drop(func(l layer) bool { return l.screen != overlay(d) })
	if d == nil || d.imageID == 0 || m.env.kitty == nil {
		return nil
	}
	return tea.Raw(m.env.kitty.Free(d.imageID))
}

// readingDialog is read, a history read whose answer opens a dialog (or
// says why none), run by the root holding the keys typed meanwhile: they
// go to the dialog once it is open, as typed ahead, and not to the screen
// under it (a script's s ↓ ↓ enter moved the detail and left the picker
// at its first place).
func readingDialog(read tea.Cmd) tea.Cmd {
	return func() tea.Msg { return dialogReadMsg{read: read} }
}

type (
	// dialogReadMsg asks the root to run a read that opens a dialog
	// (readingDialog); dialogReadDoneMsg carries its answer.
	dialogReadMsg     struct{ read tea.Cmd }
	dialogReadDoneMsg struct{ msg tea.Msg }
)

// readDialog runs read, holding the keys typed until its answer is taken
// (readingDialog); what it opens answers from.
func (m *Model) readDialog(read tea.Cmd, from owner) tea.Cmd {
	m.holding = true
	return func() tea.Msg { return dialogReadDoneMsg{msg: owned{to: from, msg: read()}} }
}

// release hands the keys held while a dialog was read (held) to what is
// now on top: the dialog, or the screen when none opened.
func (m *Model) release() tea.Cmd {
	held := m.held
	m.holding, m.held = false, nil
	cmds := make([]tea.Cmd, 0, len(held))
	for _, k := range held {
		cmds = append(cmds, m.onKey(k))
	}
	return tea.Sequence(cmds...)
}
