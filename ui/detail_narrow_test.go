package ui

import (
	"bytes"
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// At 60x16, the smallest screen, a task's detail keeps its status line
// whole: its state, credits and creation go on to a second line rather
// than past the edge, and an error's meaning goes under its code (both
// were cut: "created Nov", "found in the inpu").
func TestDetailStatusLineAtTheSmallestScreen(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, standardTasks())
	clk.t = testNow
	m := New(s, clk.now, nil)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(60, 16),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Send(tea.BackgroundColorMsg{Color: color.Black})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("processing 40%"))
	}, teatest.WithDuration(hangGuard))
	tm.Send(press("enter")) // the whale, processing
	if !drawnWhole(tm, `processing 40%.*120 credits`, `created .*Nov 26 14:56:00.*\(4m ago\)`) {
		t.Fatal("the processing task's status line is not whole at 60x16")
	}
	for _, k := range []string{"esc", "down", "down", "down", "down", "enter"} { // the lighthouse, failed
		tm.Send(press(k))
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("ImageCheckFaceFailed"))
	}, teatest.WithDuration(hangGuard))
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
