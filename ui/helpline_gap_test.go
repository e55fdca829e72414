package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// At 80 columns the Tasks page's keys stop, cut between whole keys, at
// least a separator's width before "? help": the line read "o operation
// filter ? help", one space apart, as if they were one key.
func TestHelpLineKeepsAGapBeforeTheGlobalKeys(t *testing.T) {
	tm, _ := runningModel(t, 80, 24)
	waitScreen(t, tm, "a whale breaching")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	lines := strings.Split(screen(tm.FinalModel(t).(*Model)), "\n")
	last := lines[len(lines)-1]
	// The keys end with a whole key's words or the ellipsis, then three
	// spaces or more.
	if !regexp.MustCompile(`^ enter details • .*(filter|…) {3,}\? help • q quit $`).MatchString(last) {
		t.Fatalf("the help line has no separator's gap before ? help: %q", last)
	}
}

// A history with no task offers no filter, state, operation or sort: there
// is nothing to narrow, and s, pressed anyway, keeps the page's welcome
// (it filtered the nothing: "No task matches these filters").
func TestEmptyHistoryOffersNoFilters(t *testing.T) {
	clk := &clock{t: testNow}
	tm := runningOn(t, New(newTestStudio(t, clk), clk.now, nil), 80, 24)
	waitScreen(t, tm, "No tasks yet")
	tm.Send(press("s"))
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(tm.FinalModel(t).(*Model))
	lines := strings.Split(got, "\n")
	if last := lines[len(lines)-1]; strings.Contains(last, "filter") || !strings.Contains(got, "No tasks yet") {
		t.Fatalf("an empty history offers filters, or s filtered it:\n%s", got)
	}
}

// On a request of unknown outcome the help line at 80 columns offers
// attach and abandon: they came after the filters, and the line was cut
// before them.
func TestHelpLineOffersAttachOnAnUnknownRequest(t *testing.T) {
	tm, _ := runningModel(t, 80, 24)
	waitScreen(t, tm, "a whale breaching")
	tm.Send(press("up"))               // the pinned request of unknown outcome
	drawnWhole(tm, "a attach task id") // the row is read: the final screen says what it offers
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	lines := strings.Split(screen(tm.FinalModel(t).(*Model)), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "a attach task id") || !strings.Contains(last, "x abandon request") {
		t.Fatalf("the help line on a request of unknown outcome: %q", last)
	}
}
