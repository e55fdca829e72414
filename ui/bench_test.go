package ui

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

var (
	fixtureMu   sync.Mutex
	fixtureDirs = map[[2]int]string{}
)

// benchDataDir is a data dir whose history holds n tasks (a fifth of them
// in flight), built once per machine (100,000 tasks take a few seconds).
func benchDataDir(b *testing.B, n int) string { return benchDataDirInFlight(b, n, -1) }

// benchDataDirInFlight is benchDataDir with exactly inFlight tasks in
// flight; a negative inFlight keeps the fixture's mix.
func benchDataDirInFlight(b *testing.B, n, inFlight int) string {
	b.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	key := [2]int{n, inFlight}
	if d, ok := fixtureDirs[key]; ok {
		return d
	}
	name := fmt.Sprintf("clapper-ui-bench-%d", n)
	if inFlight >= 0 {
		name += fmt.Sprintf("-%d-in-flight", inFlight)
	}
	d := filepath.Join(os.TempDir(), name)
	path := filepath.Join(d, "history.db")
	if _, err := os.Stat(path); err != nil {
		os.MkdirAll(d, 0o700)
		if err := history.WriteFixtureInFlight(path+".tmp", n, inFlight, testNow.AddDate(-1, 0, 0), testNow); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			b.Fatal(err)
		}
	}
	fixtureDirs[key] = d
	return d
}

func openBenchStudio(b *testing.B, dir string) *studio.Studio {
	b.Helper()
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	s, err := studio.Open(context.Background(), cfg, studio.Options{Sandbox: &sandbox.Config{StatePath: filepath.Join(b.TempDir(), "sb.json"), Seed: 1}})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchModel is the Tasks page on a large history at 140x40, loaded.
func benchModel(b *testing.B, n int) *Model {
	s := openBenchStudio(b, benchDataDir(b, n))
	b.Cleanup(func() { s.Close() })
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	if len(m.pages[pageTasks].(*tasksPage).win.rows) == 0 {
		b.Fatal("no rows loaded")
	}
	return m
}

// The task list's frame with 10,000 and 100,000 tasks in history (target
// under 1 ms): only the visible window is rendered.
func BenchmarkTaskListView(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := benchModel(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// A cursor move and the frame after it (target under 1 ms). The cursor
// walks down and back inside the loaded window, so no page read is in the
// loop: reads run in commands, off the UI's path.
func BenchmarkTaskListMoveView(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := benchModel(b, n)
			down, up := press("down"), press("up")
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				k := down
				if (i/20)%2 == 1 {
					k = up
				}
				i++
				m.Update(k)
				_ = m.View()
			}
		})
	}
}

// From nothing to the first frame with its rows, on a 100,000-task
// history with 5 and with 20,000 tasks in flight (targets: under 100 ms,
// the same with 20,000 in flight): open the studio (history and embedded
// sandbox), start it (the watcher loads what is in flight), build the
// model, run its loads, draw.
func BenchmarkStartToFirstFrame(b *testing.B) {
	for _, c := range []struct {
		name     string
		inFlight int
	}{{"5-in-flight", 5}, {"20k-in-flight", -1}} {
		b.Run(c.name, func(b *testing.B) {
			dir := benchDataDirInFlight(b, 100_000, c.inFlight)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s := openBenchStudio(b, dir)
				if err := s.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				m := New(s, time.Now, nil)
				m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
				tasks := m.pages[pageTasks].(*tasksPage)
				if !runUntil(m, m.Init(), func() bool { return len(tasks.win.rows) > 0 }, 10*time.Second) {
					b.Fatal("no rows within 10 s")
				}
				_ = m.View()
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
		})
	}
}

// The SQL statements one watcher state event costs the screens, on a
// 100,000-task history with the Tasks page in front: the watcher records
// the state (not counted: that is the watcher's write), the event reaches
// the root, and the change probe then tells whether the history moved under
// another process's hand. Target: no re-read of the page, only the row and
// the header's figures. Before the change pipeline: 26 statements and
// 20 ms an event (every page re-read twice: once for the event, once more
// when the change watcher saw the process's own write).
func BenchmarkStateEventStatements(b *testing.B) {
	// The events are recorded for real: on a copy, so the shared fixture
	// keeps its tasks in flight for the other benchmarks.
	dir := b.TempDir()
	fixture, err := os.ReadFile(filepath.Join(benchDataDir(b, 100_000), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "history.db"), fixture, 0o600); err != nil {
		b.Fatal(err)
	}
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	s, err := studio.Open(context.Background(), cfg, studio.Options{
		Sandbox: &sandbox.Config{StatePath: filepath.Join(b.TempDir(), "sb.json"), Seed: 1},
		History: []history.Option{history.WithDriver(countingDriverName())},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	ctx := context.Background()
	// A second store on the same file sees the UI's commits as another
	// process's.
	other, err := history.Open(s.Config.HistoryPath())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { other.Close() })
	probe, err := other.NewChangeProbe(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// The tasks in flight, newest first: those on screen come first.
	p, err := s.Record().Tasks(ctx, record.Filter{States: []string{api.StateQueueing, api.StateProcessing}, Limit: 20_000})
	if err != nil {
		b.Fatal(err)
	}
	tasks, i := p.Tasks, 0
	var screens int64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for tasks[i%len(tasks)].State == api.StateSuccess {
			i++
		}
		t := &tasks[i%len(tasks)]
		from, to := t.State, api.StateProcessing
		if from == api.StateProcessing {
			to = api.StateSuccess
		}
		if _, err := s.Record().ApplyResult(ctx, t.TaskID, record.Update{State: to}); err != nil {
			b.Fatal(err)
		}
		t.State = to
		before := statements.Load()
		send(m, studioEventMsg{track.Event{Kind: track.EventState, TaskID: t.TaskID, From: from, To: to}})
		screens += statements.Load() - before
		if moved, err := probe.Changed(ctx); err != nil || moved {
			b.Fatalf("the process's own write was reported as another's (%v)", err)
		}
		i++
	}
	b.ReportMetric(float64(screens)/float64(b.N), "statements/event")
}

// Enter on a History search to its rows, counts and charts, on a
// 100,000-task history (target: under 50 ms): the page's window, the
// counts by state with what the matches cost, and the two charts, read as
// the program would. Words, dates, both, the fields, and words too short
// for the search index (they scan the index of what they match, 0020).
func BenchmarkHistorySearchTotals(b *testing.B) {
	m := benchModel(b, 100_000)
	send(m, press("5"))
	p := m.pages[pageHistory].(*historyPage)
	year := "from:" + testNow.AddDate(-1, 0, 0).Format(time.DateOnly)
	for _, q := range []string{"neon robot", year, "neon " + year, "state:success", "op:text2video model:svcq1", "state:failed " + year, "ne", "a"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				p.search.SetValue(q)
				p.typed++
				p.totals.counts = nil
				run(m, p.apply())
				if p.problem != "" || len(p.totals.counts) == 0 || len(p.win.rows) == 0 {
					b.Fatalf("search %q: %s; %d counts, %d rows", q, p.problem, len(p.totals.counts), len(p.win.rows))
				}
			}
		})
	}
}
