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

// In a running program, ctrl+c over a scene's prompt that holds nothing to
// lose quits at once: the prompt opened and left as it was, or with only
// spaces typed at its end (what would be sent is the same prompt). Only an
// edit asks first (TestQuitAsksOverAScenePromptEdited).
func TestQuitOverAScenePromptNotEditedInARunningProgram(t *testing.T) {
	r := newSceneRig(t)
	for _, c := range []struct{ name, typed string }{{"left as it was", ""}, {"spaces typed at its end", "  "}} {
		t.Run(c.name, func(t *testing.T) {
			m := New(r.s, func() time.Time { return testNow }, nil)
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24),
				teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
			tm.Send(tea.BackgroundColorMsg{Color: color.Black})
			waitFor := func(text string) {
				t.Helper()
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
					teatest.WithDuration(hangGuard))
			}
			// Scenes, the job, its second scene's prompt.
			tm.Send(press("3"))
			waitFor("lighthouse")
			tm.Send(press("enter"))
			waitFor("edit prompt")
			tm.Send(press("down"))
			tm.Send(press("e"))
			waitFor("send the edit")
			tm.Type(c.typed)
			tm.Send(press("ctrl+c"))
			tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
			final := tm.FinalModel(t).(*Model)
			ed := final.pages[pageScenes].(*scenesPage).editor
			switch {
			case ed == nil || ed.prompt == nil:
				t.Fatal("the program quit from somewhere else than the scene's prompt")
			case ed.prompt.area.Value() != ed.prompt.from.Prompt+c.typed:
				t.Fatalf("the prompt reads %q, want the version's with %q typed", ed.prompt.area.Value(), c.typed)
			}
		})
	}
}
