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

// A detail that fits its room offers no scrolling; one longer than the
// room does (↑/↓ were offered on every detail).
func TestDetailOffersScrollingOnlyWhenLonger(t *testing.T) {
	for _, c := range []struct {
		w, h   int
		keys   []string // to the task's detail
		word   string   // on the detail once read
		scroll bool
	}{
		{140, 40, []string{"down", "down", "down", "down", "enter"}, "No usable face", false}, // the failed lighthouse: a few lines
		{80, 24, []string{"G", "enter"}, "Timeline", true},                                    // the red fox: its request and echo pass 24 rows
	} {
		tm, _ := runningModel(t, c.w, c.h)
		waitScreen(t, tm, "processing 40%")
		for _, k := range c.keys {
			tm.Send(press(k))
		}
		waitScreen(t, tm, c.word)
		tm.Send(press("?"))
		waitScreen(t, tm, "Keys: task detail")
		tm.Send(press("q"))
		tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
		got := screen(tm.FinalModel(t).(*Model))
		if strings.Contains(got, "scroll up") != c.scroll || strings.Contains(got, "scroll down") != c.scroll {
			t.Errorf("the detail at %dx%d: scrolling offered should be %v:\n%s", c.w, c.h, c.scroll, got)
		}
	}
}
