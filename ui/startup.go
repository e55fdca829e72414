package ui

// The start: boot draws the first frame (boot.go); the rows' reads begin
// as the studio opens, before the root takes over; the hidden pages' reads
// and the studio's start wait for the frame with the rows to be drawn.

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
)

// rowsDrawnMsg says the frame with the Tasks list's first rows is drawn:
// what waited for it runs.
type rowsDrawnMsg struct{ then []tea.Cmd }

// readEarly begins the reads of the frame with the rows now, as the studio
// opens, before the root takes over from boot: they overlap the hand-over
// instead of following it. Init hands on their results.
func (m *Model) readEarly() {
	m.early = early(m.firstReads())
}

// firstReads are what the first frame shows: the shown page's rows, then
// the header's counts.
func (m *Model) firstReads() tea.Cmd {
	return tea.Batch(m.pages[m.active].Init(), loadStats(m.env))
}

// early runs cmd in the background at once and returns a command that
// yields its message.
func early(cmd tea.Cmd) tea.Cmd {
	out := make(chan tea.Msg, 1)
	go runInTurn(cmd, out)
	return func() tea.Msg { return <-out }
}

// runInTurn runs cmd and sends its message on out. A batch is sent on at
// once, its commands standing for the messages they will send; they run in
// turn, in order: run together, each would open a history connection of
// its own, and each connection reads the whole schema as it opens.
func runInTurn(cmd tea.Cmd, out chan<- tea.Msg) {
	if cmd == nil {
		out <- nil
		return
	}
	msg := cmd()
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		out <- msg
		return
	}
	cmds := slices.Clone(batch)
	outs := make([]chan tea.Msg, len(cmds))
	for i := range cmds {
		outs[i] = make(chan tea.Msg, 1)
		batch[i] = func() tea.Msg { return <-outs[i] }
	}
	out <- batch
	for i, c := range cmds {
		runInTurn(c, outs[i])
	}
}

// startStudio starts the studio (Run's start).
func (m *Model) startStudio() tea.Cmd {
	run := m.start
	return func() tea.Msg {
		if err := run(); err != nil {
			return statusMsg{text: "could not follow the tasks in flight: " + api.CleanLine(err.Error()), bad: true}
		}
		return nil
	}
}
