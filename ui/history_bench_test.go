package ui

import (
	"context"
	"flag"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api/sandbox"
	"clapper/studio"
)

var (
	historyBenchTasks = flag.Int("tasks", 100_000, "the number of tasks in the History benchmarks' history file (1000000: a few minutes to build, once)")
	historyBenchURL   = flag.String("history-url", "", "a team database for the History benchmarks instead of a file, e.g. the history package's clapper_bench_1000000 (its -pg-tasks)")
)

// historyBenchModel is the History page at 140x40 on a large history: a
// file of -tasks tasks, or the team database -history-url names.
func historyBenchModel(b *testing.B) (*Model, *historyPage) {
	b.Helper()
	cfg := studio.Config{Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	if *historyBenchURL != "" {
		cfg.DataDir, cfg.HistoryURL, cfg.HistoryURLGiven = b.TempDir(), *historyBenchURL, true
	} else {
		cfg.DataDir = benchDataDir(b, *historyBenchTasks)
	}
	s, err := studio.Open(context.Background(), cfg, studio.Options{Sandbox: &sandbox.Config{StatePath: filepath.Join(b.TempDir(), "sb.json"), Seed: 1}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	send(m, press("5"))
	p := m.pages[pageHistory].(*historyPage)
	if len(p.win.rows) == 0 {
		b.Fatal("no rows loaded")
	}
	return m, p
}

// A search applied on the History screen, its reads run side by side as
// the program runs them: the time to its rows on the page (ms-to-rows)
// and to its totals (ms-to-totals), and the resident size after the
// searches, and what they added to it. Broad words ("ne" is in three tasks
// of five), a common word over a year, and a state for comparison.
// -tasks=1000000 for a history file of a million tasks; -history-url for a
// team database.
func BenchmarkHistorySearchStreams(b *testing.B) {
	m, p := historyBenchModel(b)
	// The year before the newest task: a team database's fixture ends on
	// another day than the file's.
	year := "from:" + p.win.rows[0].CreatedAt.AddDate(-1, 0, 0).Format(time.DateOnly)
	for _, q := range []string{"ne", "neon", "neon " + year, "state:failed"} {
		b.Run(q, func(b *testing.B) {
			before := residentMB(b)
			var toRows, toTotals time.Duration
			for b.Loop() {
				p.search.SetValue(q)
				p.typed++
				rows, totals := searchToScreen(b, m, p)
				toRows += rows
				toTotals += totals
			}
			after := residentMB(b)
			b.ReportMetric(float64(toRows.Microseconds())/1000/float64(b.N), "ms-to-rows")
			b.ReportMetric(float64(toTotals.Microseconds())/1000/float64(b.N), "ms-to-totals")
			b.ReportMetric(after, "MB-resident")
			b.ReportMetric(after-before, "MB-added")
		})
	}
}

// searchToScreen applies what the search field holds and runs what that
// starts concurrently, as the program does, until the rows, the totals
// and the charts are on the page: how long the rows took and the totals.
func searchToScreen(b *testing.B, m *Model, p *historyPage) (rows, totals time.Duration) {
	b.Helper()
	msgs := make(chan tea.Msg, 64)
	pending := 0
	start := func(c tea.Cmd) {
		if c != nil {
			pending++
			go func() { msgs <- c() }()
		}
	}
	began := time.Now()
	start(p.apply())
	for pending > 0 {
		msg := <-msgs
		pending--
		switch msg := unowned(msg).(type) {
		case nil, timerSetMsg:
			// The screens' timers (the counting word's grace) stay unset.
			continue
		case tea.BatchMsg:
			for _, c := range msg {
				start(c)
			}
			continue
		}
		_, next := m.Update(msg)
		start(next)
		if rows == 0 && !p.win.loading {
			rows = time.Since(began)
		}
		if totals == 0 && !p.counting.running {
			totals = time.Since(began)
		}
	}
	if p.problem != "" || len(p.win.rows) == 0 || p.totals.counts == nil || p.totalsErr != nil {
		b.Fatalf("search %q: %s; %d rows, totals %v (%v)", p.search.Value(), p.problem, len(p.win.rows), p.totals.counts, p.totalsErr)
	}
	return rows, totals
}

// residentMB is the process's resident set (VmRSS), in MB.
func residentMB(b *testing.B) float64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status here: ", err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}
