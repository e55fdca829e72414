//go:build unix

package ui

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/studio"
)

func cpuUsed(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// drive runs m as the program would for d: commands in goroutines, their
// messages, the studio's events and change signals back into Update, real
// timers.
func drive(m *Model, s *studio.Studio, cmd tea.Cmd, d time.Duration) {
	msgs := make(chan tea.Msg, 256)
	exec := func(c tea.Cmd) {
		if c != nil {
			go func() { msgs <- c() }()
		}
	}
	exec(cmd)
	end := time.After(d)
	for {
		select {
		case <-end:
			return
		case ev := <-s.Events():
			_, c := m.Update(studioEventMsg{ev})
			exec(c)
		case <-s.Changes():
			_, c := m.Update(historyChangedMsg{})
			exec(c)
		case msg := <-msgs:
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range msg {
					exec(c)
				}
			default:
				if seq, ok := sequence(msg); ok {
					for _, c := range seq {
						exec(c)
					}
					continue
				}
				_, c := m.Update(msg)
				exec(c)
				_ = m.View()
			}
		}
	}
}

// The running TUI left alone on the History page with a year's text search
// open, on a 100,000-task history: SQL statements per second and the CPU
// used (core-%), with nothing in flight and with 5 off-peak tasks waiting
// in queueing that the watcher reads. Target: 5 queued within 1.2x of
// nothing in flight: a read that changes nothing writes nothing, so no
// screen reads again.
func BenchmarkIdleSearchOpen(b *testing.B) {
	for _, queued := range []int{0, 5} {
		b.Run(fmt.Sprintf("%d-queued", queued), func(b *testing.B) {
			dir := b.TempDir()
			copyFile(b, filepath.Join(benchDataDirInFlight(b, 100_000, 0), "history.db"), filepath.Join(dir, "history.db"))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
			s, err := studio.Open(ctx, cfg, studio.Options{
				Sandbox: &sandbox.Config{StatePath: filepath.Join(dir, "sb.json"), Seed: 1},
				History: []history.Option{history.WithDriver(countingDriverName())},
			})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for i := range queued {
				if _, err := s.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq1", "prompt": fmt.Sprint("dawn ", i),
					"duration": 5, "off_peak": true, "audio": false}); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Start(ctx); err != nil {
				b.Fatal(err)
			}
			m := New(s, time.Now, nil)
			m.env.timers = realTimers{}
			m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
			m.Update(tea.BackgroundColorMsg{Color: color.Black})
			drive(m, s, m.Init(), time.Second)
			keys := []tea.Msg{press("5"), press("/")}
			for _, r := range "neon robot from:" + testNow.AddDate(-1, 0, 0).Format(time.DateOnly) {
				keys = append(keys, tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			keys = append(keys, press("enter"))
			for _, k := range keys {
				_, c := m.Update(k)
				drive(m, s, c, 10*time.Millisecond)
			}
			drive(m, s, nil, 3*time.Second) // the search, the first reads of the tasks
			if m.active != pageHistory || m.pages[pageHistory].(*historyPage).query.Text != "neon robot" {
				b.Fatalf("page %d, search %+v", m.active, m.pages[pageHistory].(*historyPage).query)
			}
			var used, wall time.Duration
			var queries int64
			for b.Loop() {
				start, cpu, q := time.Now(), cpuUsed(b), statements.Load()
				drive(m, s, nil, time.Second)
				used += cpuUsed(b) - cpu
				wall += time.Since(start)
				queries += statements.Load() - q
			}
			b.ReportMetric(100*used.Seconds()/wall.Seconds(), "core-%")
			b.ReportMetric(float64(queries)/wall.Seconds(), "statements/s")
		})
	}
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		b.Fatal(err)
	}
}
