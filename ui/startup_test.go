package ui

import "testing"

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
