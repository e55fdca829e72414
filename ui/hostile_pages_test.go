package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
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
