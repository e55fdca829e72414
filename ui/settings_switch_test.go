package ui

import (
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/studio"
)

// Settings saved that restart the studio say what it now runs on: the
// backend and the history, as a new team history restarts it too (the
// line read "now running on sandbox" after a switch of history).
func TestARestartNamesTheBackendAndTheHistory(t *testing.T) {
	path, _ := studio.SettingsPath()
	t.Cleanup(func() { os.Remove(path) }) // the save writes it: no other test reads it
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	history := s.Config.HistoryName()
	tm := runningOn(t, New(s, clk.now, nil), 160, 30)
	tm.Send(press("6"))
	waitScreen(t, tm, "Sandbox speed")
	for _, k := range []string{"down", "down", "down", "down", "down", "enter", "2", "enter", "s"} { // Sandbox speed 1 → 12
		tm.Send(press(k))
	}
	waitScreen(t, tm, "now running on")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(tm.FinalModel(t).(*Model))
	if want := "now running on sandbox · history " + history; !strings.Contains(got, want) {
		t.Fatalf("the restart does not say %q:\n%s", want, got)
	}
}
