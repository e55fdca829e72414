package ui

import (
	"strings"
	"testing"
)

// Typing into the Tasks filter searches once typing pauses, not on every
// key: three keys leave the list as it was until the pause after the last
// one; the pauses after the first two were no pauses.
func TestTasksFilterSearchesWhenTypingPauses(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	p := m.pages[pageTasks].(*tasksPage)
	all := len(p.win.rows)
	send(m, press("/"))
	typeText(m, "fox")
	if len(p.win.rows) != all {
		t.Fatalf("searched while typing: %d rows of %d", len(p.win.rows), all)
	}
	var settled []filterSettledMsg
	for _, pt := range timersOf(m).pending {
		if s, ok := unowned(pt.msg).(filterSettledMsg); ok {
			settled = append(settled, s)
		}
	}
	if len(settled) != 3 {
		t.Fatalf("%d pauses scheduled for 3 keys", len(settled))
	}
	for _, s := range settled[:2] {
		send(m, s)
	}
	if len(p.win.rows) != all {
		t.Fatalf("searched before typing paused: %d rows of %d", len(p.win.rows), all)
	}
	send(m, settled[2])
	if len(p.win.rows) != 1 || !strings.Contains(p.win.rows[0].Prompt, "fox") {
		t.Fatalf("after the pause %d rows, want the fox", len(p.win.rows))
	}
}
