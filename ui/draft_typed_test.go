package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// A path typed into a list field and not added (no file there: it stays
// in the line, to be corrected) is still in the line after a restart; the
// draft brought it back as an item of the list ("[0] nofile").
func TestATypedPathStaysInTheLineAcrossARestart(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	tm := runningOn(t, New(s, clk.now, nil), 80, 24)
	tm.Send(press("2"))
	waitScreen(t, tm, "general_one_click")
	for range 13 { // general_one_click: its form opens in the prompt, under the images
		tm.Send(press("down"))
	}
	tm.Send(press("enter"))
	waitScreen(t, tm, "images for the scenes")
	tm.Send(press("up")) // the images' line
	tm.Type("nofile")
	waitScreen(t, tm, "no such file")
	tm.Send(press("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	if err := tm.FinalModel(t).(*Model).keepDrafts(time.Second); err != nil { // as the program's end does
		t.Fatal(err)
	}

	again := runningOn(t, New(s, clk.now, nil), 80, 24)
	again.Send(press("2"))
	waitScreen(t, again, "images")
	again.Send(press("ctrl+c"))
	again.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(again.FinalModel(t).(*Model))
	if strings.Contains(got, "[0] nofile") || !strings.Contains(got, "0 of 1-7") || !strings.Contains(got, "┃ nofile") {
		t.Fatalf("after a restart the typed path is not back in the line alone:\n%s", got)
	}
}
