package ui

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// The help line shows every key of the screen as soon as they fit with a
// separator's room before "? help": at the narrowest such width the keys
// and "? help" are exactly three columns apart, and one column less cuts
// the keys, between whole keys, with "…". Found by hand mutation: a cut
// one column early, or the gap one column wider, passed every test.
func TestHelpLineShowsEveryKeyOnceTheyFitWithAGap(t *testing.T) {
	last := func(t *testing.T, w int) string {
		t.Helper()
		tm, _ := runningModel(t, w, 24)
		waitScreen(t, tm, "a whale breaching")
		tm.Send(press("q"))
		tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
		lines := strings.Split(screen(tm.FinalModel(t).(*Model)), "\n")
		return lines[len(lines)-1]
	}
	const global = "? help • q quit "
	var keys string
	t.Run("wide", func(t *testing.T) {
		line := last(t, 140)
		keys = strings.TrimRight(strings.TrimSuffix(line, global), " ")
		if !strings.HasSuffix(line, global) || strings.Contains(keys, "…") {
			t.Fatalf("at 140 columns the Tasks page's keys are not whole: %q", line)
		}
	})
	if keys == "" {
		t.FailNow()
	}
	w := lipgloss.Width(keys) + len("   ") + lipgloss.Width(global)
	t.Run("the narrowest whole", func(t *testing.T) {
		if got, want := last(t, w), keys+"   "+global; got != want {
			t.Errorf("at %d columns the help line reads\n%q, want\n%q", w, got, want)
		}
	})
	t.Run("a column less", func(t *testing.T) {
		if got := last(t, w-1); !strings.HasSuffix(got, global) || !strings.Contains(got, "… ") || len(got) >= len(keys+"   "+global) {
			t.Errorf("at %d columns the help line reads %q, want its keys cut with …", w-1, got)
		}
	})
}
