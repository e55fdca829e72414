package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// The contact sheet's help offers ↑/↓ only when the sheet has more than
// one row of versions, and ←/→ only over more than one version: at 80
// columns a set of four is one row, and ↑/↓ moved nothing (found driving
// a set of variations).
func TestSheetHelpOffersUpDownOnlyOverRows(t *testing.T) {
	for _, c := range []struct {
		versions          int
		upDown, leftRight bool
	}{{1, false, false}, {4, false, true}, {6, true, true}} {
		clk := &clock{t: testNow}
		s := newTestStudio(t, clk)
		sheetSet(t, s, clk, c.versions)
		tm := runningOn(t, New(s, clk.now, nil), 80, 24)
		tm.Send(press("C"))
		waitScreen(t, tm, "versions")
		tm.Send(press("enter"))
		waitScreen(t, tm, "version 1")
		tm.Send(press("?"))
		waitScreen(t, tm, "Keys: contact sheet")
		tm.Send(press("q"))
		tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
		got := screen(tm.FinalModel(t).(*Model))
		if strings.Contains(got, "↑/k up") != c.upDown || strings.Contains(got, "↓/j down") != c.upDown ||
			strings.Contains(got, "←/h left") != c.leftRight || strings.Contains(got, "G     last") != c.leftRight {
			t.Errorf("%d versions at 80x24: ↑/↓ offered should be %v, ←/→ %v:\n%s", c.versions, c.upDown, c.leftRight, got)
		}
	}
}
