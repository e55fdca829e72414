package ui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

// liveModel is the terminal UI, 140x30, on a live service at serviceURL,
// its clock clk, started.
func liveModel(t *testing.T, serviceURL string, clk *clock) *Model {
	t.Helper()
	cfg := studio.Config{DataDir: filepath.Join(t.TempDir(), "d"), BaseURL: serviceURL, APIKey: "k-1234567", Timeout: 5 * time.Second,
		SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	s, err := studio.Open(context.Background(), cfg, studio.Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m := New(s, clk.now, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 30})
	run(m, m.Init())
	return m
}

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
	m := liveModel(t, ts.URL, &clock{t: testNow})
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

// A refused key shows in the header at once (the account is read on
// start), and goes when a read answers again; a service out of reach shows
// since when. A refusal of one request says nothing of the link.
func TestHeaderSaysWhenTheKeyIsRefusedOrTheServiceIsOutOfReach(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	srv, err := sandbox.New(sandbox.Config{Seed: 3, Clock: sandbox.NewFakeClock(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse.Load() {
			w.WriteHeader(401)
			io.WriteString(w, `{"code":401,"reason":"Unauthorized","message":"bad key"}`)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	clk := &clock{t: testNow}
	m := liveModel(t, ts.URL, clk)
	head := func() string { return strings.SplitN(screen(m), "\n", 2)[0] }
	if !strings.Contains(head(), "LIVE") || !strings.Contains(head(), "KEY REFUSED") {
		t.Fatalf("a refused key is not in the header: %q", head())
	}
	refuse.Store(false)
	advance(m, clk, healthEvery)
	if strings.Contains(head(), "KEY REFUSED") || !strings.Contains(head(), "credits left") {
		t.Fatalf("the badge stays after the key works: %q", head())
	}
	ts.Close() // the service goes away
	lost := clk.t.Add(accountEvery)
	advance(m, clk, accountEvery)
	if want := "UNREACHABLE since " + lost.Local().Format("15:04"); !strings.Contains(head(), want) {
		t.Fatalf("header %q lacks %q", head(), want)
	}
}

// While the service is out of reach, the clock of a task in flight stops
// where the link was lost: nothing is known of it since.
func TestHealthStopsTheClocksOfTasksInFlight(t *testing.T) {
	var h health
	t0 := testNow
	h.note(&api.Error{Status: 400, Reason: api.ReasonFieldInvalid}, t0)
	if h.badge() != "" || !h.clock(t0.Add(time.Minute)).Equal(t0.Add(time.Minute)) {
		t.Fatalf("a refused request changed the link's health: %+v", h)
	}
	h.note(&api.NetworkError{Method: "GET", Path: "/x", Err: io.ErrUnexpectedEOF}, t0)
	h.note(&api.NetworkError{Method: "GET", Path: "/x", Err: io.ErrUnexpectedEOF}, t0.Add(time.Minute))
	if !h.clock(t0.Add(5*time.Minute)).Equal(t0) || !strings.HasPrefix(h.badge(), "UNREACHABLE since ") {
		t.Errorf("out of reach since %v: clock %v, badge %q", t0, h.clock(t0.Add(5*time.Minute)), h.badge())
	}
	run := record.Task{State: api.StateProcessing, CreatedAt: t0.Add(-time.Minute)}
	if a, b := timingLine(run, h.clock(t0.Add(time.Hour)), record.Usual{}, false), timingLine(run, h.clock(t0), record.Usual{}, false); a != b {
		t.Errorf("the detail's clock ran on while out of reach: %q, then %q", b, a)
	}
	h.note(nil, t0.Add(time.Hour))
	if h.badge() != "" {
		t.Errorf("a read that answered left %q", h.badge())
	}
}

// A change to the history (a task sent from another terminal, or one that
// ends) reads the account again within seconds, not at the next minute's
// read: the header's counts follow the tasks.
func TestLiveHeaderFollowsAChangeWithinSeconds(t *testing.T) {
	srv, err := sandbox.New(sandbox.Config{Seed: 3, MaxConcurrent: 3, Clock: sandbox.NewFakeClock(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, _ := api.NewClient(ts.URL, "k-1234567")
	create := func() {
		if _, err := c.Create(context.Background(), api.OpText2Video, map[string]any{"model": "svcq2", "prompt": "waves"}); err != nil {
			t.Fatal(err)
		}
	}
	create()
	clk := &clock{t: testNow}
	m := liveModel(t, ts.URL, clk)
	head := func() string { return strings.SplitN(screen(m), "\n", 2)[0] }
	if !strings.Contains(head(), "1 queued") {
		t.Fatalf("header %q lacks 1 queued", head())
	}
	create()
	send(m, historyChangedMsg{})
	send(m, historyChangedMsg{}) // a burst of changes
	advance(m, clk, accountSoonAfter)
	if !strings.Contains(head(), "2 queued") {
		t.Errorf("%v after a change, header %q lacks 2 queued", accountSoonAfter, head())
	}
}

// A service that takes the connection and never answers is out of reach
// for the header once a read of the account has waited its bound, not
// after the whole request timeout.
func TestHeaderSaysASilentServiceIsOutOfReach(t *testing.T) {
	silent := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-silent:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(silent) })
	cfg := studio.Config{DataDir: filepath.Join(t.TempDir(), "d"), BaseURL: ts.URL, APIKey: "k-1234567", Timeout: time.Minute,
		SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	s, err := studio.Open(context.Background(), cfg, studio.Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	clk := &clock{t: testNow}
	m := New(s, clk.now, nil)
	if m.env.answerWithin != accountAnswerWithin || accountAnswerWithin > 10*time.Second {
		t.Fatalf("the header's reads wait %v", m.env.answerWithin)
	}
	m.env.answerWithin = 200 * time.Millisecond
	send(m, tea.WindowSizeMsg{Width: 140, Height: 30})
	start := time.Now()
	run(m, m.Init())
	head := strings.SplitN(screen(m), "\n", 2)[0]
	if !strings.Contains(head, "UNREACHABLE since") || time.Since(start) > 10*time.Second {
		t.Errorf("after %v the header reads %q", time.Since(start).Round(time.Millisecond), head)
	}
}
