package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// historySearch types a search on the History page and waits for its
// totals and charts.
func historySearch(t *testing.T, m *Model, text string) {
	t.Helper()
	send(m, press("/"))
	m.Update(ctrl('u'))
	typeText(m, text)
	send(m, press("enter"))
	p := m.pages[pageHistory].(*historyPage)
	if !runUntil(m, nil, func() bool { return !p.counting.running }, hangGuard) {
		t.Fatalf("the search %q never settled:\n%s", text, screen(m))
	}
}

// The charts beside the list follow a search of words or tags as its
// totals do: only what the matches cost (issue 32).
func TestHistoryChartsFollowWordAndTagSearches(t *testing.T) {
	m, s := newTestModel(t, 140, 40)
	cat, err := s.Record().TaskByID(context.Background(), "811000000000000002")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().SetLabels(context.Background(), cat.LocalID, []string{"client"}, ""); err != nil {
		t.Fatal(err)
	}
	set, _ := sheetSet(t, s, &clock{t: testNow}, 3) // two svcq2 versions sent, 4 credits each
	send(m, press("5"))
	if got := screen(m); !strings.Contains(got, "svcq3-pro") || strings.Contains(got, "of these tasks") {
		t.Fatalf("without a search the charts are of every task:\n%s", got)
	}
	for _, c := range []struct{ search, model, not string }{{"fox", "svcq1", "svcq3-pro"}, {"tag:client", "svcq2", "svcq1"},
		{fmt.Sprintf("set:%d", set), "svcq2", "svcq1"}} {
		historySearch(t, m, c.search)
		charts := screen(m)
		charts = charts[strings.Index(charts, "Credits by model"):]
		if !strings.Contains(charts, "Credits by model · of these tasks") || !strings.Contains(charts, c.model) || strings.Contains(charts, c.not) {
			t.Fatalf("%s: the charts are not of the matches (%s only):\n%s", c.search, c.model, screen(m))
		}
		if !strings.Contains(screen(m), "spent on these") {
			t.Fatalf("%s: the totals are not of the matches:\n%s", c.search, screen(m))
		}
	}
}

// Under 110 columns the charts take the list's place: the list's keys
// scroll them or say what to do, and never move its hidden cursor nor
// open a task that is not on screen (issue 32).
func TestHistoryNarrowChartsKeepTheListStill(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("5"))
	p := m.pages[pageHistory].(*historyPage)
	cursor := p.win.cursor
	send(m, press("c"))
	for _, k := range []string{"G", "pgdown", "down", "g", "pgup", "enter"} {
		send(m, press(k))
	}
	if m.detail() != nil || p.win.cursor != cursor {
		t.Fatalf("keys on the charts moved the hidden list (cursor %d, was %d) or opened a task:\n%s", p.win.cursor, cursor, screen(m))
	}
	if got := screen(m); !strings.Contains(got, "c shows the list, where enter opens a task") || strings.Contains(got, "enter details") {
		t.Fatalf("enter on the charts does not say what to do, or the help offers it:\n%s", got)
	}
	send(m, press("c"))
	send(m, press("down"))
	if p.win.cursor != cursor+1 {
		t.Fatalf("back on the list, ↓ moves its cursor: %d", p.win.cursor)
	}
}

// The totals line names the days that cost something, not the span's
// first day: all of it on one day is "spent Nov 26"; at 80 columns it is
// there, after the count, before the states (issue 32).
func TestHistorySpentNamesTheDaysThatCost(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("5"))
	if got := screen(m); !strings.Contains(got, "7 tasks · 206 credits spent Nov 25–Nov 26 ·") {
		t.Fatalf("the span's spending is not named by its days:\n%s", got)
	}
	historySearch(t, m, "from:"+testNow.Format("2006-01-02"))
	if got := screen(m); !strings.Contains(got, "166 credits spent Nov 26 ") {
		t.Fatalf("one day's spending is not named by that day:\n%s", got)
	}
	historySearch(t, m, "from:"+testNow.AddDate(0, 0, -10).Format("2006-01-02")+" to:"+testNow.AddDate(0, 0, -5).Format("2006-01-02"))
	if got := screen(m); !strings.Contains(got, "nothing spent Nov 16–Nov 21") {
		t.Fatalf("a span with nothing spent is not named whole:\n%s", got)
	}
}
