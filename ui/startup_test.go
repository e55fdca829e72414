package ui

import (
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// At start only what the first frame shows is read: the History and
// Scenes lists wait until their page is shown, and then are there.
func TestHiddenListsReadWhenShown(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	h := m.pages[pageHistory].(*historyPage)
	if len(h.win.rows) != 0 || m.stale[pageHistory] != rereadAll || m.stale[pageScenes] != rereadAll {
		t.Fatalf("read at start: %d history rows; stale %v", len(h.win.rows), m.stale)
	}
	if len(m.pages[pageTasks].(*tasksPage).win.rows) == 0 {
		t.Fatal("the Tasks page has no rows")
	}
	send(m, press("5"))
	if len(h.win.rows) == 0 || m.stale[pageHistory] != rereadNone {
		t.Errorf("the History page shown has %d rows", len(h.win.rows))
	}
}

// The first frame waits for one read, the Tasks list's page: the hidden
// pages' reads (voices, drafts) and the studio's start (loading what is in
// flight, the watcher) begin only once its rows are there, so on two busy
// cores they do not compete with it.
func TestHiddenPagesReadAfterTheFirstRows(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, standardTasks())
	m := New(s, func() time.Time { return testNow }, nil)
	starts := 0
	m.start = func() error { starts++; return nil }
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	// reads runs cmd and what it batches, and names the data each returns
	// without handing it to the model.
	reads := func(cmd tea.Cmd) (names []string, rows tea.Msg) {
		for queue := []tea.Cmd{cmd}; len(queue) > 0; queue = queue[1:] {
			if queue[0] == nil || isBlink(queue[0]) {
				continue
			}
			switch msg := queue[0]().(type) {
			case tea.BatchMsg:
				queue = append(queue, msg...)
			case windowLoadedMsg:
				names, rows = append(names, "rows"), msg
			case voicesLoadedMsg:
				names = append(names, "voices")
			case draftsFoundMsg:
				names = append(names, "drafts")
			}
		}
		return names, rows
	}
	first, rows := reads(m.Init())
	if !slices.Equal(first, []string{"rows"}) || starts != 0 {
		t.Fatalf("reads at start: %v, %d studio starts; want only the Tasks rows", first, starts)
	}
	_, next := m.Update(rows)
	then, _ := reads(next)
	if !slices.Contains(then, "voices") || !slices.Contains(then, "drafts") || starts != 1 {
		t.Errorf("reads once the rows are there: %v, %d studio starts; want voices and drafts, and one start", then, starts)
	}
}
