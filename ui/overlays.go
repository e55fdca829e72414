package ui

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// The overlay stack. What stands over the pages is one stack, top last:
// the contact sheet, a task's detail opened over it (esc goes back down),
// and dialogs, drawn over everything below. The top takes the keys; a
// dialog's answers are typed messages for whoever opened it. The root
// finds a screen of the stack by its kind instead of keeping one field
// per overlay.

// overlay is a screen over the pages: the contact sheet or a detail.
type overlay interface {
	Init() tea.Cmd
	Update(tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	Help() help.KeyMap
	Capturing() bool
	tickEvery() time.Duration
}

// layer is one entry of the stack: a screen, or a dialog and who opened it.
type layer struct {
	screen overlay
	dialog dialog
	from   owner
}

// push puts l on top; a screen goes under the dialogs open, which stay in
// front until answered.
func (m *Model) push(l layer) {
	at := len(m.stack)
	for l.screen != nil && at > 0 && m.stack[at-1].dialog != nil {
		at--
	}
	m.stack = slices.Insert(m.stack, at, l)
	m.layout()
}

// drop takes off every layer keep refuses.
func (m *Model) drop(keep func(layer) bool) {
	kept := m.stack[:0]
	for _, l := range m.stack {
		if keep(l) {
			kept = append(kept, l)
		}
	}
	clear(m.stack[len(kept):])
	m.stack = kept
}

// dialog is the dialog on top, if the top is one.
func (m *Model) dialog() dialog {
	if n := len(m.stack); n > 0 {
		return m.stack[n-1].dialog
	}
	return nil
}

// openDialog puts d on top; its answers go to from.
func (m *Model) openDialog(d dialog, from owner) {
	m.push(layer{dialog: d, from: from})
}

// closeDialog takes the dialog on top off.
func (m *Model) closeDialog() {
	if m.dialog() != nil {
		m.stack[len(m.stack)-1] = layer{}
		m.stack = m.stack[:len(m.stack)-1]
	}
}

// front is the top-most screen of the stack (dialogs aside), nil when the
// page is in front.
func (m *Model) front() overlay {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if s := m.stack[i].screen; s != nil {
			return s
		}
	}
	return nil
}

// detail is the task detail on the stack, if any.
func (m *Model) detail() *detailModel { return screenOf[*detailModel](m) }

// sheet is the contact sheet on the stack, if any.
func (m *Model) sheet() *contactSheet { return screenOf[*contactSheet](m) }

func screenOf[T overlay](m *Model) T {
	for _, l := range m.stack {
		if s, ok := l.screen.(T); ok {
			return s
		}
	}
	var none T
	return none
}

// dropSheet takes the contact sheet (and what stood over it) off.
func (m *Model) dropSheet() {
	for i, l := range m.stack {
		if _, ok := l.screen.(*contactSheet); ok {
			clear(m.stack[i:])
			m.stack = m.stack[:i]
			return
		}
	}
}

// capturing reports whether the screen in front takes typed text, so the
// global keys must not fire.
func (m *Model) capturing() bool {
	if front := m.front(); front != nil {
		return front.Capturing()
	}
	return m.pages[m.active].Capturing()
}
