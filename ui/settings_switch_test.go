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

// At 80x24 the chosen row's help takes two lines, so the team history's
// form of URL reads whole (it was cut at "HOST:P…"), and a value longer
// than its row ends in "…" (it ran off the edge: "?sslm").
func TestSettingsRowsReadWholeAt80x24(t *testing.T) {
	tm, _ := runningModel(t, 80, 24)
	tm.Send(press("6"))
	waitScreen(t, tm, "Sandbox speed")
	tm.Send(press("G"))
	tm.Send(press("enter"))
	tm.Type("postgres://ann@db-host.example.com:5432/the_long_name_of_our_team_database")
	tm.Send(press("enter"))
	waitScreen(t, tm, "Unsaved changes")
	tm.Send(press("ctrl+c")) // asks first over the changes
	waitScreen(t, tm, "Quit")
	tm.Send(press("y"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(tm.FinalModel(t).(*Model))
	if !strings.Contains(got, "postgres://USER:PASSWORD@HOST:PORT/DATABASE") {
		t.Errorf("the team history's help is cut:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "Team history") && !strings.HasSuffix(strings.TrimRight(line, " "), "…") {
			t.Errorf("a long value runs off its row: %q", line)
		}
	}
}
