package ui

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/studio"
)

// A live header shows the account as the service counts it: credits left,
// running, queued and the service's own limit.
func TestLiveHeaderShowsTheAccount(t *testing.T) {
	srv, err := sandbox.New(sandbox.Config{Seed: 3, MaxConcurrent: 3, Clock: sandbox.NewFakeClock(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, _ := api.NewClient(ts.URL, "k-1234567")
	if _, err := c.Create(context.Background(), api.OpText2Video, map[string]any{"model": "svcq2", "prompt": "waves"}); err != nil {
		t.Fatal(err)
	}
	cfg := studio.Config{DataDir: filepath.Join(t.TempDir(), "d"), BaseURL: ts.URL, APIKey: "k-1234567", Timeout: 5 * time.Second,
		SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	s, err := studio.Open(context.Background(), cfg, studio.Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 30})
	run(m, m.Init())
	head := strings.SplitN(screen(m), "\n", 2)[0]
	for _, want := range []string{"LIVE", "0 running", "1 queued", "limit 3", "credits left"} {
		if !strings.Contains(head, want) {
			t.Errorf("header %q lacks %q", head, want)
		}
	}
}

// A catalog file that could not be used is said on the status line at
// start: the warning printed before the screen took over is not lost.
func TestStartupWarningsShow(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	s.Config.Warnings = []string{`catalog.json: text2video model "x": field duration: min 9 is above max 2; using the built-in catalog`}
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 160, Height: 30})
	run(m, m.Init())
	if !strings.Contains(screen(m), "min 9 is above max 2; using the built-in catalog") {
		t.Errorf("the warning is not shown:\n%s", screen(m))
	}
}
