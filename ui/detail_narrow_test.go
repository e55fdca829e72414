package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// At 60x16, the smallest screen, a task's detail keeps its status line
// whole: its state, credits and creation go on to a second line rather
// than past the edge, and an error's meaning goes under its code (both
// were cut: "created Nov", "found in the inpu").
func TestDetailStatusLineAtTheSmallestScreen(t *testing.T) {
	tm, _ := runningModel(t, 60, 16)
	waitScreen(t, tm, "processing 40%")
	tm.Send(press("enter")) // the whale, processing
	if !drawnWhole(tm, `processing 40%.*120 credits`, `created .*Nov 26 14:56:00.*\(4m ago\)`) {
		t.Fatal("the processing task's status line is not whole at 60x16")
	}
	for _, k := range []string{"esc", "down", "down", "down", "down", "enter"} { // the lighthouse, failed
		tm.Send(press(k))
	}
	waitScreen(t, tm, "No usable face")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(tm.FinalModel(t).(*Model))
	for _, want := range []string{"✗ failed ImageCheckFaceFailed  ·  0 credits", "created Nov 26 12:00:00 (3h ago)",
		"No usable face was found in the input image."} {
		if !strings.Contains(got, want) {
			t.Errorf("the failed task's detail at 60x16 lacks %q:\n%s", want, got)
		}
	}
}
