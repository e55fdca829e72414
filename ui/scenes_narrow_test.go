package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"
)

// At 60x16 the Scenes page's title keeps its words whole: what the page
// is for goes to a second line (it was cut: "scenes you edit and re").
func TestScenesTitleAtTheSmallestScreen(t *testing.T) {
	tm, _ := runningModel(t, 60, 16)
	tm.Send(press("3"))
	waitScreen(t, tm, "multi-scene job yet")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	got := screen(tm.FinalModel(t).(*Model))
	if !strings.Contains(got, "\n Multi-scene jobs") || !strings.Contains(got, "\n general_one_click: scenes you edit and recompose") {
		t.Fatalf("the Scenes page's title at 60x16:\n%s", got)
	}
}
