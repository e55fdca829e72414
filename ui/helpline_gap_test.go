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
