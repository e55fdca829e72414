package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// historyProgram is the History page of the standard tasks in a running
// program at w x h.
func historyProgram(t *testing.T, w, h int) *teatest.TestModel {
	t.Helper()
	tm, _ := runningModel(t, w, h)
	tm.Send(press("5"))
	waitScreen(t, tm, "/ search")
	return tm
}

// A search from a day after today finds nothing and says so; its totals
// read "CreditsByDay needs from < to" (the charts' span ended today).
func TestHistorySearchFromTomorrowFindsNothing(t *testing.T) {
	tm := historyProgram(t, 140, 40)
	tm.Send(press("/"))
	tm.Type("from:" + testNow.AddDate(0, 0, 1).Format("2006-01-02"))
	tm.Send(press("enter"))
	waitScreen(t, tm, "No task matches")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(tm.FinalModel(t).(*Model))
	if strings.Contains(got, "needs from < to") || !strings.Contains(got, "0 tasks") {
		t.Fatalf("a search from tomorrow:\n%s", got)
	}
}

// A search nothing matches offers no enter: there is no task to open.
func TestHistoryOffersNoEnterOverNoMatch(t *testing.T) {
	tm := historyProgram(t, 80, 24)
	tm.Send(press("/"))
	tm.Type("nothing-like-this")
	tm.Send(press("enter"))
	waitScreen(t, tm, "No task matches")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	lines := strings.Split(screen(tm.FinalModel(t).(*Model)), "\n")
	if last := lines[len(lines)-1]; strings.Contains(last, "enter") || !strings.Contains(last, "/ search") {
		t.Fatalf("the help line over no match: %q", last)
	}
}

// At 60x16 the History page's search line keeps whole words: the words a
// search takes end in "…" where the room ends, and a search's words stand
// without the hint that no longer fits (both were cut mid-word: "fr",
// "(/ to chang").
func TestHistorySearchLineAtTheSmallestScreen(t *testing.T) {
	tm := historyProgram(t, 60, 16)
	if !drawnWhole(tm, `/ search: words state: .*is:keeper …`) {
		t.Fatal("the search words are not cut between whole words at 60 columns")
	}
	tm.Send(press("/"))
	tm.Type("fox from:" + testNow.Format("2006-01-02"))
	tm.Send(press("enter"))
	waitScreen(t, tm, "search ›")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	lines := strings.Split(screen(tm.FinalModel(t).(*Model)), "\n")
	if line := strings.TrimRight(lines[3], " "); line != "search › fox from:"+testNow.Format("2006-01-02") {
		t.Fatalf("the search's line at 60 columns: %q", line)
	}
}

// The charts shown in place of the list offer the keys that scroll them
// only when they pass the room: at 80x24 the standard charts fit, and
// ↑/↓, pgup/pgdn and g/G moved nothing; at 60x16 they scroll.
func TestHistoryChartsOfferScrollingOnlyWhenTheyPassTheRoom(t *testing.T) {
	for _, c := range []struct {
		w, h   int
		scroll bool
	}{{80, 24, false}, {60, 16, true}} {
		tm := historyProgram(t, c.w, c.h)
		tm.Send(press("c"))
		waitScreen(t, tm, "Credits by")
		tm.Send(press("?"))
		waitScreen(t, tm, "Keys: History")
		tm.Send(press("q"))
		tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
		got := screen(tm.FinalModel(t).(*Model))
		if strings.Contains(got, "scroll up") != c.scroll || strings.Contains(got, "G    bottom") != c.scroll || !strings.Contains(got, "c the list") {
			t.Errorf("the charts at %dx%d: scrolling offered should be %v:\n%s", c.w, c.h, c.scroll, got)
		}
	}
}
