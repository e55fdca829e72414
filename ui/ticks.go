package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The one timer of the screen: it runs while something shown moves by
// itself, and not otherwise.

// scheduleTick keeps one timer running while something on screen moves
// and none otherwise: spinners and download bars step every spinnerStep; a
// queued task's clock hand, ages, a detail's running time and URL
// countdowns only as often as their labels change (seconds under a minute
// old, else minutes). An idle screen with nothing recent never
// redraws. A timer set for later gives way to one that must fire sooner
// (a slow minute tick to the spinner of a task just sent): the screen
// moves whenever something is in flight.
func (m *Model) scheduleTick() tea.Cmd {
	if m.quitting || m.dialog() != nil || m.showHelp {
		return nil
	}
	every := m.tickEvery()
	if every == 0 {
		return nil
	}
	due := m.env.now().Add(every)
	if m.ticking && !m.tickDue.After(due) {
		return nil // the timer set already fires by then
	}
	m.ticking, m.tickDue = true, due
	m.tickGen++
	return m.env.timers.after(every, tickMsg{m.tickGen})
}

// tickEvery is how soon what the screen shows changes by itself; zero is
// never.
func (m *Model) tickEvery() time.Duration {
	if front := m.front(); front != nil {
		return front.tickEvery()
	}
	if p, ok := m.pages[m.active].(interface{ tickEvery() time.Duration }); ok {
		return p.tickEvery()
	}
	return 0
}
