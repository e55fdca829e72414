//go:build unix

package ui

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
	"clapper/studio"
)

// cpuUsed is the CPU time this process has used: the CPU clock where it is
// known (processCPU), else getrusage's, which counts scheduler ticks.
func cpuUsed(b *testing.B) time.Duration {
	if t := processCPU(); t > 0 {
		return t
	}
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

// The running TUI left alone on the Tasks page of a 100,000-task history,
// as a person runs it: Bubble Tea drawing the real wiring (runWith) into a
// 140x40 terminal. Reported: the CPU the process uses (core-%), and the
// frames and bytes written a second. With nothing in flight, with 5 tasks
// processing at the embedded sandbox (the watcher reads them), and with
// 20,000 in flight, which fill the screen with spinners. Target: 5
// processing within 1.3x of nothing in flight, 20,000 within 1.5x.
func BenchmarkIdleTasks(b *testing.B) {
	for _, c := range []struct {
		name                 string
		inFlight, processing int
	}{{"nothing-in-flight", 0, 0}, {"5-processing", 0, 5}, {"20000-in-flight", 20_000, 0}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			copyFile(b, filepath.Join(benchDataDirInFlight(b, 100_000, c.inFlight), "history.db"), filepath.Join(dir, "history.db"))
			cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.processing > 0 {
				submitLong(b, ctx, cfg, c.processing)
			}
			var out frameCounter
			done := make(chan error, 1)
			go func() {
				done <- runWith(ctx, cfg, tea.WithInput(nil), tea.WithWindowSize(140, 40), tea.WithOutput(&out))
			}()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					b.Error(err)
				}
			}()
			// The start, the first reads, the watcher's load (of 20,000
			// tasks: a second or two); the tasks sent leave queueing
			// within seconds.
			awaitProcessing(b, cfg, c.processing)
			time.Sleep(3 * time.Second)
			var used, wall time.Duration
			var frames, bytes int64
			for b.Loop() {
				start, cpu, f, n := time.Now(), cpuUsed(b), out.frames.Load(), out.bytes.Load()
				time.Sleep(2 * time.Second)
				used += cpuUsed(b) - cpu
				wall += time.Since(start)
				frames += out.frames.Load() - f
				bytes += out.bytes.Load() - n
			}
			if c.processing > 0 {
				awaitProcessing(b, cfg, c.processing) // still processing: the window was idle as named
			}
			b.ReportMetric(100*used.Seconds()/wall.Seconds(), "core-%")
			b.ReportMetric(float64(frames)/wall.Seconds(), "frames/s")
			b.ReportMetric(float64(bytes)/wall.Seconds()/1000, "kB/s")
		})
	}
}

// submitLong sends n videos that process for over a minute at the
// embedded sandbox of cfg's data dir, from a studio of their own: the one
// the TUI opens then finds them in flight, as after a restart.
func submitLong(b *testing.B, ctx context.Context, cfg studio.Config, n int) {
	b.Helper()
	s, err := studio.Open(ctx, cfg, studio.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		if _, err := s.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": fmt.Sprint("a long dusk ", i),
			"duration": 10, "audio": false}); err != nil {
			b.Fatal(err)
		}
	}
}

// awaitProcessing waits until n tasks of cfg's history are processing.
func awaitProcessing(b *testing.B, cfg studio.Config, n int) {
	b.Helper()
	if n == 0 {
		return
	}
	h, err := history.Open(cfg.HistoryPath())
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	for deadline := time.Now().Add(hangGuard); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		p, err := h.Tasks(context.Background(), record.Filter{States: []string{api.StateProcessing}, Limit: n + 1})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Tasks) == n {
			return
		}
	}
	b.Fatalf("%d tasks not processing within %s", n, hangGuard)
}

// frameCounter is a terminal that counts what it is sent: Bubble Tea
// writes each frame whole.
type frameCounter struct{ frames, bytes atomic.Int64 }

func (w *frameCounter) Write(p []byte) (int, error) {
	w.frames.Add(1)
	w.bytes.Add(int64(len(p)))
	return len(p), nil
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	// Streamed: a history of 160 MB read whole would leave the heap's
	// collection in the windows measured after it.
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
