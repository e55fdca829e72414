package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/studio"
)

// testNow is the fixed clock of every screen test.
var testNow = time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	time.Local = time.UTC
	// Fixed paths: the Settings page shows them, and goldens must not
	// depend on a random temp name.
	os.RemoveAll(testRoot)
	os.Setenv(studio.EnvConfigDir, filepath.Join(testRoot, "config"))
	os.Unsetenv(studio.EnvAPIKey)
	code := m.Run()
	os.RemoveAll(testRoot)
	os.Exit(code)
}

// testRoot is this process's own folder (two runs at once must not share
// one), of a fixed length so that snapshots wrap alike; snapshot writes it
// as goldenRoot.
var (
	testRoot   = filepath.Join(os.TempDir(), fmt.Sprintf("clapper-ui-%010d", os.Getpid()))
	goldenRoot = filepath.Join(os.TempDir(), "clapper-ui-0000000000")
)

// clock is a settable time for the store's stamps.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// newTestStudio opens a sandbox studio on a fresh data dir, not started:
// nothing runs in the background unless a test starts it.
func newTestStudio(t testing.TB, clk *clock) *studio.Studio {
	t.Helper()
	dir := filepath.Join(testRoot, regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_"))
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return newTestStudioIn(t, clk, dir)
}

// newTestStudioIn is newTestStudio on a given data dir.
func newTestStudioIn(t testing.TB, clk *clock, dir string) *studio.Studio {
	t.Helper()
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	s, err := studio.Open(context.Background(), cfg, studio.Options{
		Clock:   clk.now,
		Sandbox: &sandbox.Config{StatePath: filepath.Join(dir, "sandbox.json"), Seed: 7},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// task is one row of test data.
type task struct {
	op      api.Operation
	model   string
	body    string
	id      string
	state   string // "" leaves it submitting
	credits int64
	errCode string
	at      time.Time
	urls    int
}

// seed records tasks through the store's public API, as the tracker does.
func seed(t testing.TB, s *studio.Studio, clk *clock, tasks []task) []int64 {
	t.Helper()
	ctx := context.Background()
	var ids []int64
	// History keeps its list order by recording time, so record in order.
	slices.SortStableFunc(tasks, func(a, b task) int { return a.at.Compare(b.at) })
	for _, k := range tasks {
		clk.t = k.at
		id, err := s.Store.BeginSubmit(ctx, history.Intent{Operation: k.op, Model: k.model, Body: []byte(k.body)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if k.state == "" {
			continue
		}
		if k.state == history.StateRejected {
			if err := s.Store.MarkRejected(ctx, id, history.Rejection{Status: 400, Reason: "FieldInvalid", Message: "duration: not allowed", TraceID: "tr-1", Fields: []string{"duration"}}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		echo, _ := json.Marshal(map[string]any{"task_id": k.id, "state": "created", "credits": k.credits, "model": k.model})
		if err := s.Store.MarkSubmitted(ctx, id, history.SubmittedEcho{TaskID: k.id, Credits: k.credits, Raw: echo}); err != nil {
			t.Fatal(err)
		}
		clk.t = k.at.Add(2 * time.Second)
		if _, err := s.Store.ApplyResult(ctx, k.id, history.Update{State: api.StateQueueing, Credits: k.credits}); err != nil {
			t.Fatal(err)
		}
		if k.state == api.StateQueueing {
			continue
		}
		clk.t = k.at.Add(5 * time.Second)
		u := history.Update{State: k.state, Credits: k.credits, ErrCode: k.errCode}
		if k.state == api.StateProcessing {
			p := int64(40)
			u.Progress = &p
		}
		var cs []api.Creation
		for i := range k.urls {
			cs = append(cs, api.Creation{ID: fmt.Sprint(i), URL: fmt.Sprintf("http://127.0.0.1:1/%s/%d.mp4", k.id, i), CoverURL: ""})
		}
		u.Creations = history.CreationsFrom(cs, k.at.Add(24*time.Hour))
		if _, err := s.Store.ApplyResult(ctx, k.id, u); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// standardTasks is the fixed data of the snapshots.
func standardTasks() []task {
	h := func(d time.Duration) time.Time { return testNow.Add(-d) }
	return []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"a red fox in fresh snow","duration":5}`, "811000000000000001", api.StateSuccess, 40, "", h(26 * time.Hour), 1},
		{api.OpReference2Image, "svcq2", `{"model":"svcq2","prompt":"a cat astronaut, studio light","images":["https://x/cat.png"]}`, "811000000000000002", api.StateSuccess, 6, "", h(5 * time.Hour), 2},
		{api.OpImg2Video, "svcq3-turbo", `{"model":"svcq3-turbo","prompt":"slow zoom on a lighthouse at dusk","images":["https://x/l.png"]}`, "811000000000000003", api.StateFailed, 0, "ImageCheckFaceFailed", h(3 * time.Hour), 0},
		{api.OpAudioTTS, "", `{"text":"Hello there, friend","voice_id":"narrator_1"}`, "", history.StateRejected, 0, "", h(2 * time.Hour), 0},
		{api.OpText2Video, "svcq3-turbo", `{"model":"svcq3-turbo","prompt":"neon city in the rain, drone shot","duration":8}`, "811000000000000005", api.StateQueueing, 40, "", h(20 * time.Minute), 0},
		{api.OpText2Video, "svcq3-pro", `{"model":"svcq3-pro","prompt":"a whale breaching at sunrise","duration":10}`, "811000000000000006", api.StateProcessing, 120, "", h(4 * time.Minute), 0},
		{api.OpTiming2Audio, "audio1.0", `{"model":"audio1.0","duration":6,"timing_prompts":[{"from":0,"to":2,"prompt":"door slams"}]}`, "", "", 0, "", h(10 * time.Minute), 0},
	}
}

// newTestModel is the root on a seeded studio, sized and themed, with every
// load done: what the first frame settles to.
func newTestModel(t testing.TB, w, h int) (*Model, *studio.Studio) {
	t.Helper()
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, standardTasks())
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: w, Height: h})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	return m, s
}

// send delivers one message and runs what it starts, as the program would.
func send(m *Model, msg tea.Msg) {
	_, cmd := m.Update(msg)
	run(m, cmd)
}

// run executes commands and feeds their messages back until none is left;
// timers (ticks, the status line's expiry) are not waited for.
func run(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(300 * time.Millisecond):
			continue // a timer
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tickMsg, statusExpiredMsg:
		default:
			if fmt.Sprintf("%T", msg) == "tea.sequenceMsg" {
				continue
			}
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// runUntil runs commands concurrently, as the program does, feeding their
// messages back until done reports true; it never waits on a timer.
func runUntil(m *Model, cmd tea.Cmd, done func() bool, limit time.Duration) bool {
	msgs := make(chan tea.Msg, 64)
	start := func(c tea.Cmd) {
		if c != nil {
			go func() { msgs <- c() }()
		}
	}
	start(cmd)
	deadline := time.After(limit)
	for !done() {
		select {
		case msg := <-msgs:
			switch msg := msg.(type) {
			case nil, tickMsg, statusExpiredMsg:
			case tea.BatchMsg:
				for _, c := range msg {
					start(c)
				}
			default:
				_, next := m.Update(msg)
				start(next)
			}
		case <-deadline:
			return false
		}
	}
	return true
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		send(m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// snapshot compares the screen with testdata/<test>.golden through a fixed
// colour profile, so the golden holds the colours too and any host gives the
// same bytes.
func snapshot(t *testing.T, m *Model) {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.ANSI256}
	w.Write([]byte(strings.ReplaceAll(m.View().Content, testRoot, goldenRoot)))
	golden.RequireEqual(t, buf.String())
}

func screen(m *Model) string { return ansi.Strip(m.View().Content) }

// controlOutsideSGR finds a control byte that is not part of a colour
// sequence: anything a server string could use to move the cursor, set a
// title or write the clipboard.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

func controlOutsideSGR(s string) (rune, bool) {
	for _, r := range sgr.ReplaceAllString(s, "") {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return r, true
		}
	}
	return 0, false
}
