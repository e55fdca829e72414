package ui

import (
	"bytes"
	"image/color"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// In a running program, the review of a request that would pass the daily
// credit cap shows the day's spending, enter asks first, and y sends it.
func TestReviewAsksBeforePassingTheDailyCapInARunningProgram(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	s.Config.DailyCreditCap = 10
	m := New(s, func() time.Time { return testNow }, nil)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Send(tea.BackgroundColorMsg{Color: color.Black})
	for _, k := range []string{"2", "down", "down", "enter", "enter"} {
		tm.Send(press(k))
	}
	// WaitFor reads the output as it goes: each wait looks for what one
	// frame shows.
	wait := func(what ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, w := range what {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(5*time.Second))
	}
	wait("ctrl+j new line")
	tm.Type("a fox")
	tm.Send(ctrl('s'))
	wait("credits today of 10", "past a credit cap · enter asks first")
	tm.Send(press("enter"))
	wait("Send past a credit cap?")
	tm.Send(press("y"))
	wait("text2video created")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(3*time.Second))
}
