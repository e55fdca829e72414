package ui

import (
	"context"
	"image/color"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/internal/pgtest"
	"clapper/studio"
)

// On a team's database every copy hears of every task's end, but only the
// one that sent it tells its user: ann is told of hers, not of bob's (his
// row changes in her list all the same).
func TestTeamCopyAnnouncesOnlyItsOwnTasks(t *testing.T) {
	url := pgtest.Get(t).Database(t, "", nil)
	clk := &clock{t: testNow}
	copyOf := func(sentBy string) *studio.Studio {
		dir := t.TempDir()
		cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark",
			HistoryURL: url, HistoryURLGiven: true}
		s, err := studio.Open(context.Background(), cfg, studio.Options{Clock: clk.now, SentBy: sentBy,
			Sandbox: &sandbox.Config{StatePath: filepath.Join(dir, "sandbox.json"), Seed: 7}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	ann, bob := copyOf("ann@studio-1"), copyOf("bob@studio-2")
	tasks := standardTasks()
	seed(t, ann, clk, tasks[4:5]) // the neon city, queueing
	seed(t, bob, clk, tasks[5:6]) // the whale, processing
	m := New(ann, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 24})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	m.notify = notifyBellOnly
	send(m, press("5")) // another page: every end of hers is news

	n := len(timersOf(m).raw)
	send(m, finish(t, m, "811000000000000006", api.StateSuccess))
	if got := rawSince(m, n); got != "" {
		t.Errorf("bob's task ending rang on ann's copy: %q", got)
	}
	if strings.Contains(screen(m), "is done") {
		t.Errorf("bob's task ending got a note on ann's copy:\n%s", screen(m))
	}
	send(m, finish(t, m, "811000000000000005", api.StateSuccess))
	if got := rawSince(m, n); got != "\a" {
		t.Errorf("ann's task ending wrote %q, want the bell", got)
	}
	if !strings.Contains(screen(m), "t2v “neon city in the rain, drone shot” is done") {
		t.Errorf("no note of ann's own task:\n%s", screen(m))
	}
}
