package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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

// esc on the list clears the typed words as well as the quick filters: the
// whole list is back (it showed "No tasks yet." over a history of seven, the
// words still searched though no longer shown), and s then filters it alone.
func TestTasksEscClearsTypedWords(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("/"))
	typeText(m, "zzz")
	send(m, press("enter"))
	if !strings.Contains(screen(m), "No task matches") {
		t.Fatalf("the words zzz match a task:\n%s", screen(m))
	}
	send(m, press("esc"))
	got := screen(m)
	for _, w := range []string{"red fox", "whale", "neon city"} {
		if !strings.Contains(got, w) {
			t.Errorf("after esc %q is not shown:\n%s", w, got)
		}
	}
	send(m, press("s"))
	if got := screen(m); !strings.Contains(got, "whale") || strings.Contains(got, "red fox") {
		t.Errorf("s after esc does not show the tasks in flight alone:\n%s", got)
	}
}

// While the filter's words are typed, every key but enter and esc is text:
// the help line and f1's page list those two and no list key (s typed there
// is a letter of the words, not the state filter).
func TestTasksFilterHelpListsOnlyItsKeys(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("/"))
	typeText(m, "s")
	lines := strings.Split(screen(m), "\n")
	short := lines[len(lines)-1]
	for _, want := range []string{"enter keep filter", "esc clear the words"} {
		if !strings.Contains(short, want) {
			t.Errorf("help line lacks %q: %s", want, short)
		}
	}
	send(m, tea.KeyPressMsg{Code: tea.KeyF1})
	full := screen(m)
	for _, dead := range []string{"details", "state filter", "operation filter", "newest", "sort", "re-read"} {
		if strings.Contains(full, dead) {
			t.Errorf("typing the filter, help lists %q:\n%s", dead, full)
		}
	}
	if !strings.Contains(full, "keep filter") {
		t.Errorf("typing the filter, help lacks enter:\n%s", full)
	}
}
