package ui

import (
	"clapper/api"
	"clapper/record"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// lastHistoryPause is the pause scheduled after the last key typed.
func lastHistoryPause(t *testing.T, m *Model) historySettledMsg {
	t.Helper()
	var last historySettledMsg
	for _, pt := range timersOf(m).pending {
		if s, ok := unowned(pt.msg).(historySettledMsg); ok {
			last = s
		}
	}
	if last.typed == 0 {
		t.Fatal("typing scheduled no search")
	}
	return last
}

// The History search applies as it is typed, once typing pauses, like the
// Tasks filter; an unknown state: word is named with the states there are.
func TestHistorySearchAppliesAsTyped(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("5"))
	p := m.pages[pageHistory].(*historyPage)
	all := len(p.win.rows)
	send(m, press("/"))
	typeText(m, "fox")
	if len(p.win.rows) != all {
		t.Fatalf("searched on every key: %d rows of %d", len(p.win.rows), all)
	}
	send(m, lastHistoryPause(t, m))
	if len(p.win.rows) != 1 || !strings.Contains(screen(m), "red fox") {
		t.Fatalf("after the pause %d rows, want the fox, without enter:\n%s", len(p.win.rows), screen(m))
	}
	if !p.typing {
		t.Fatal("the search keeps the keys while it applies")
	}
	typeText(m, " state:bogus")
	send(m, lastHistoryPause(t, m))
	if !strings.Contains(screen(m), "state:bogus: a state is one of created, queueing") {
		t.Fatalf("an unknown state word must be named:\n%s", screen(m))
	}
	for range len(" state:bogus") {
		send(m, press("backspace"))
	}
	typeText(m, " from:yesterday")
	send(m, lastHistoryPause(t, m))
	if !strings.Contains(screen(m), "from:yesterday: give a date") {
		t.Fatalf("a word that cannot be read is named:\n%s", screen(m))
	}
}

// A search's totals answer only while that search is the one shown: an
// earlier one still counting (a word too short for the search index scans
// every prompt) is cancelled, and its late answer never replaces the
// newer totals.
func TestHistoryTotalsOfASupersededSearchAreDropped(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("5"))
	p := m.pages[pageHistory].(*historyPage)
	p.query = record.Filter{Text: "fox"}
	older := p.loadFigures(false) // a recount: the read alone
	p.query = record.Filter{}
	run(m, p.loadFigures(true))
	all := p.totals.counts
	late, ok := older().(historyTotalsMsg)
	if !ok || !errors.Is(late.err, context.Canceled) {
		t.Fatalf("the superseded read was not cancelled: %+v", late)
	}
	late.err = nil
	late.totals.counts = map[string]int{"success": 1}
	send(m, late)
	if !maps.Equal(p.totals.counts, all) || len(all) < 2 {
		t.Fatalf("a superseded search's totals %v replaced the newer %v", p.totals.counts, all)
	}
}

// A word that cannot be read is named whole at 80 columns, its list of the
// states there are included (it was cut after "failed, …"): on the Tasks
// page under the filter, on the History page in two lines; the list below
// keeps its rows and its place (a list longer than the screen).
func TestSearchProblemShownWhole(t *testing.T) {
	var more []task
	for i := range 20 {
		more = append(more, task{api.OpText2Video, "svcq1", fmt.Sprintf(`{"model":"svcq1","prompt":"otter %d"}`, i),
			fmt.Sprintf("8110000000000001%02d", i), api.StateSuccess, 40, "", testNow.Add(-time.Duration(i+1) * time.Minute), 0})
	}
	m, _ := newClockedModel(t, more)
	rows := func() int { return strings.Count(screen(m), "otter") }
	header := func() int {
		return slices.IndexFunc(strings.Split(screen(m), "\n"), func(l string) bool { return strings.Contains(l, "PROMPT OR SUBJECT") })
	}
	states := func(page string) {
		t.Helper()
		if flat := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(flat, "submitting, rejected, abandoned") {
			t.Errorf("%s: the states are not all named:\n%s", page, screen(m))
		}
	}
	send(m, press("/"))
	typeText(m, "state:bogus")
	send(m, press("enter"))
	states("Tasks")
	// G puts the oldest row on the last line the list has: it is shown.
	send(m, press("G"))
	if !strings.Contains(screen(m), "a red fox in fresh sn") {
		t.Errorf("Tasks: the oldest row, selected, is not in view:\n%s", screen(m))
	}
	send(m, press("esc"))
	send(m, press("5"))
	full, at := rows(), header()
	send(m, press("/"))
	typeText(m, "state:bogus")
	send(m, lastHistoryPause(t, m))
	states("History")
	if got := rows(); got != full || header() != at {
		t.Errorf("History: the list moved or lost rows under the message (%d rows, %d under the totals):\n%s", got, full, screen(m))
	}
}
