package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
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
	"clapper/internal/pgtest"
	"clapper/internal/testenv"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// testNow is the fixed clock of every screen test.
var testNow = time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	if mode := os.Getenv(firstFrameChild); mode != "" {
		os.Exit(firstFrameChildMain(mode)) // a process the first-frame benchmark starts
	}
	time.Local = time.UTC
	// A blink command stays recognisable (isBlink): its message goes to
	// the screen in front, which is where a cursor blinks.
	own = func(to owner, cmd tea.Cmd) tea.Cmd {
		if cmd != nil && isBlink(cmd) {
			return cmd
		}
		return ownCmd(to, cmd)
	}
	cleanup := testenv.Isolate()
	// Fixed paths: the Settings page shows them, and goldens must not
	// depend on a random temp name.
	os.RemoveAll(testRoot)
	os.Setenv(studio.EnvConfigDir, filepath.Join(testRoot, "config"))
	code := m.Run()
	os.RemoveAll(testRoot)
	cleanup()
	pgtest.Stop()
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

// useCountingDriver makes newTestStudio count the history's statements.
var useCountingDriver bool

// newTestStudioIn is newTestStudio on a given data dir.
func newTestStudioIn(t testing.TB, clk *clock, dir string) *studio.Studio {
	t.Helper()
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	o := studio.Options{
		Clock:   clk.now,
		Sandbox: &sandbox.Config{StatePath: filepath.Join(dir, "sandbox.json"), Seed: 7},
		SentBy:  "ann@studio-1", // golden screens must not name the machine they ran on
	}
	if useCountingDriver {
		o.History = []history.Option{history.WithDriver(countingDriverName())}
	}
	s, err := studio.Open(context.Background(), cfg, o)
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
	// Every front end sends tasks: the list shows each origin.
	origins := []record.Origin{record.OriginTUI, record.OriginCLI, record.OriginMCP}
	for i, k := range tasks {
		clk.t = k.at
		// Sent by this process, which beat last when it recorded the row.
		id, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: k.op, Model: k.model, Body: []byte(k.body), Origin: origins[i%len(origins)], Sender: track.Sender()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if k.state == "" {
			continue
		}
		if k.state == record.StateRejected {
			if err := s.Record().MarkRejected(ctx, id, record.Rejection{Status: 400, Reason: "FieldInvalid", Message: "duration: not allowed", TraceID: "tr-1", Fields: []string{"duration"}}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		echo, _ := json.Marshal(map[string]any{"task_id": k.id, "state": "created", "credits": k.credits, "model": k.model})
		if err := s.Record().MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: k.id, Credits: k.credits, Raw: echo}); err != nil {
			t.Fatal(err)
		}
		clk.t = k.at.Add(2 * time.Second)
		if _, err := s.Record().ApplyResult(ctx, k.id, record.Update{State: api.StateQueueing, Credits: k.credits}); err != nil {
			t.Fatal(err)
		}
		if k.state == api.StateQueueing {
			continue
		}
		clk.t = k.at.Add(5 * time.Second)
		u := record.Update{State: k.state, Credits: k.credits, ErrCode: k.errCode}
		if k.state == api.StateProcessing {
			p := int64(40)
			u.Progress = &p
		}
		var cs []api.Creation
		for i := range k.urls {
			cs = append(cs, api.Creation{ID: fmt.Sprint(i), URL: fmt.Sprintf("http://127.0.0.1:1/%s/%d.mp4", k.id, i), CoverURL: ""})
		}
		u.Creations = record.CreationsFrom(cs, k.at.Add(24*time.Hour))
		if _, err := s.Record().ApplyResult(ctx, k.id, u); err != nil {
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
		{api.OpAudioTTS, "", `{"text":"Hello there, friend","voice_id":"narrator_1"}`, "", record.StateRejected, 0, "", h(2 * time.Hour), 0},
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

// fakeTimers are the program's timers in tests: a timer's command returns
// at once with a timerSetMsg, which the harness files; the timer fires when
// the test moves the screens' clock past it (fireDue, advance), never by
// waiting. A text cursor's blink (bubbles runs it on its own context, not
// on our timers) is filed the same way, known by its function.
type fakeTimers struct {
	now     func() time.Time
	pending []pendingTimer
	// raw is what the program wrote to the terminal verbatim (tea.Raw).
	raw []string
}

type pendingTimer struct {
	due time.Time
	msg tea.Msg // delivered when it fires,
	cmd tea.Cmd // or run then (a cursor's blink)
}

type timerSetMsg struct{ timer pendingTimer }

func (f *fakeTimers) after(d time.Duration, msg tea.Msg) tea.Cmd {
	t := pendingTimer{due: f.now().Add(d), msg: msg}
	return func() tea.Msg { return timerSetMsg{t} }
}

// blinkEvery is bubbles' cursor blink interval.
const blinkEvery = 530 * time.Millisecond

// timersOf puts fake timers in the model, once, on its screens' clock.
func timersOf(m *Model) *fakeTimers {
	if f, ok := m.env.timers.(*fakeTimers); ok {
		return f
	}
	f := &fakeTimers{now: m.env.now}
	m.env.timers = f
	return f
}

// fireDue fires, earliest first, every timer due by the screens' clock,
// with everything they start.
func fireDue(m *Model) {
	f := timersOf(m)
	for {
		now := m.env.now()
		i := -1
		for j, t := range f.pending {
			if !t.due.After(now) && (i < 0 || t.due.Before(f.pending[i].due)) {
				i = j
			}
		}
		if i < 0 {
			return
		}
		t := f.pending[i]
		f.pending = slices.Delete(f.pending, i, i+1)
		if t.cmd != nil {
			run(m, t.cmd)
		} else {
			send(m, t.msg)
		}
	}
}

// advance moves clk (the screens' clock) by d and fires what fell due.
func advance(m *Model, clk *clock, d time.Duration) {
	clk.t = clk.t.Add(d)
	fireDue(m)
}

// flushFrame lets a frame pass on a fixed clock: the change pipeline's
// coalesced reads run.
func flushFrame(m *Model) {
	f := timersOf(m)
	for i := 0; i < len(f.pending); i++ {
		if _, ok := f.pending[i].msg.(flushMsg); ok {
			f.pending = slices.Delete(f.pending, i, i+1)
			send(m, flushMsg{})
			i = -1
		}
	}
}

// send delivers one message and runs what it starts, as the program
// would, then lets a frame pass (a person types slower than 60 frames a
// second): the reads the message marked run.
func send(m *Model, msg tea.Msg) {
	timersOf(m)
	_, cmd := m.Update(msg)
	run(m, cmd)
	flushFrame(m)
}

// run executes commands one after another and feeds their messages back
// until none is left; every result is delivered, and timers are filed for
// fireDue.
func run(m *Model, cmd tea.Cmd) {
	f := timersOf(m)
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		if isBlink(c) {
			f.pending = append(f.pending, pendingTimer{due: m.env.now().Add(blinkEvery), cmd: c})
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case nil:
		case tea.RawMsg:
			f.raw = append(f.raw, fmt.Sprint(msg.Msg))
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case timerSetMsg:
			if drawn, ok := msg.timer.msg.(rowsDrawnMsg); ok {
				// What waits for the frame with the first rows runs as
				// they arrive: the harness draws no frames.
				queue = append(queue, func() tea.Msg { return drawn })
				continue
			}
			f.pending = append(f.pending, msg.timer)
		case owned:
			if set, ok := msg.msg.(timerSetMsg); ok {
				// A child's timer fires back to the child.
				t := set.timer
				t.msg = owned{to: msg.to, msg: t.msg}
				f.pending = append(f.pending, t)
				continue
			}
			_, next := m.Update(msg)
			queue = append(queue, next)
		default:
			if seq, ok := sequence(msg); ok {
				for _, c := range seq {
					run(m, c)
				}
				continue
			}
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// isBlink tells a text cursor's blink command (a real timer inside
// bubbles) by the function it is.
func isBlink(c tea.Cmd) bool {
	return strings.Contains(runtime.FuncForPC(reflect.ValueOf(c).Pointer()).Name(), "bubbles/v2/cursor.")
}

// sequence unpacks tea.Sequence's message, whose type is unexported: its
// commands run in order.
func sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() {
		return nil, false
	}
	cmds := make([]tea.Cmd, v.Len())
	for i := range cmds {
		cmds[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return cmds, true
}

// runUntil runs commands concurrently, as the program does, feeding their
// messages back until done reports true. Timers are filed as run files
// them, except a frame's flush and the frame with the first rows, which
// fire at once: the concurrent work (a form's check, the watcher) is real,
// and its screen should follow.
// limit only guards against a hang: every caller expects done to come
// true, so it is stretched to hangGuard, which a -race run on a loaded
// machine never reaches, and a passing test returns as soon as done holds.
func runUntil(m *Model, cmd tea.Cmd, done func() bool, limit time.Duration) bool {
	limit = max(limit, hangGuard)
	f := timersOf(m)
	msgs := make(chan tea.Msg, 64)
	start := func(c tea.Cmd) {
		switch {
		case c == nil:
		case isBlink(c):
			f.pending = append(f.pending, pendingTimer{due: m.env.now().Add(blinkEvery), cmd: c})
		default:
			go func() { msgs <- c() }()
		}
	}
	start(cmd)
	deadline := time.After(limit)
	for !done() {
		select {
		case msg := <-msgs:
			switch msg := msg.(type) {
			case nil:
			case tea.RawMsg:
				f.raw = append(f.raw, fmt.Sprint(msg.Msg))
			case tea.BatchMsg:
				for _, c := range msg {
					start(c)
				}
			case timerSetMsg:
				switch t := msg.timer.msg.(type) {
				case flushMsg, rowsDrawnMsg:
					start(func() tea.Msg { return t })
					continue
				}
				f.pending = append(f.pending, msg.timer)
			default:
				if seq, ok := sequence(msg); ok {
					for _, c := range seq {
						run(m, c)
					}
					continue
				}
				_, next := m.Update(msg)
				start(next)
			}
		case <-deadline:
			return false
		}
	}
	return true
}

// hangGuard bounds every wait for something that must happen: long enough
// for a -race run on a loaded 2-core machine, and only ever reached when
// the awaited thing never comes.
const hangGuard = 30 * time.Second

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
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
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

// unowned is the message inside an addressed one (route.go), or msg.
func unowned(msg tea.Msg) tea.Msg {
	if o, ok := msg.(owned); ok {
		return o.msg
	}
	return msg
}

// savedResult writes content at path and records it in history as the
// saved file of task taskID's first result, as the downloader would; it
// returns path.
func savedResult(t *testing.T, s *studio.Studio, taskID, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dl, err := s.Record().QueueDownload(ctx, taskID, 0, record.KindURL, path)
	if err != nil {
		t.Fatal(err)
	}
	done := record.DownloadProgress{Status: record.DownloadDone, Path: path, Bytes: int64(len(content)), Total: int64(len(content))}
	if err := s.Record().UpdateDownload(ctx, dl, done); err != nil {
		t.Fatal(err)
	}
	return path
}
