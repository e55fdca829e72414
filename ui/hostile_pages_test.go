package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/scenes"
)

// A multi-scene job's prompt is the user's, but history keeps it as the
// service echoed it: on the Scenes list it is shown cleaned, never as
// control sequences, and still readable.
func TestScenesListShowsThePromptCleaned(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, []task{
		{api.OpGeneralOneClick, "", `{"images":["https://x/a.png"],"duration":25,"prompt":"a \u001b]0;pwned\u0007lighthouse \u001b[2Jat \u009b31mdusk"}`,
			"812000000000000001", api.StateSuccess, 30, "", testNow.Add(-time.Hour), 1},
	})
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	run(m, m.Init())
	send(m, press("3"))
	if r, bad := controlOutsideSGR(m.View().Content); bad {
		t.Errorf("control character %U of a prompt reached the Scenes list:\n%q", r, m.View().Content)
	}
	if got := screen(m); !strings.Contains(got, "lighthouse") || !strings.Contains(got, "dusk") {
		t.Errorf("the cleaned prompt is not shown:\n%s", got)
	}
}

// d saves the version under the cursor (scene 2, its first version here),
// and only it; D saves the composed video.
func TestSceneEditorSavesWhatIsSelected(t *testing.T) {
	r := newSceneRig(t)
	m := r.model(t, 100, 30)
	for _, k := range []string{"3", "enter", "down", "left", "left"} {
		send(m, press(k))
	}
	saved := func(id string) bool {
		_, v, ok := scenes.Find(r.load(t), id)
		return ok && v.Download != nil && v.Download.Status == record.DownloadDone
	}
	j := r.load(t)
	want := j.Scenes[1].Jobs[0].ID
	_, cmd := m.Update(press("d"))
	if !runUntil(m, cmd, func() bool { return saved(want) }, 10*time.Second) {
		t.Fatalf("d did not save version 1 of scene 2:\n%s", screen(m))
	}
	for _, rec := range j.Scenes {
		for _, v := range rec.Jobs {
			if v.ID != want && saved(v.ID) {
				t.Errorf("d also saved %s", v.ID)
			}
		}
	}
	cut := j.Compose[len(j.Compose)-1].Current().ID
	if saved(cut) {
		t.Fatal("the cut was saved before D")
	}
	_, cmd = m.Update(press("D"))
	if !runUntil(m, cmd, func() bool { return saved(cut) }, 10*time.Second) {
		t.Errorf("D did not save the composed video:\n%s", screen(m))
	}
}
