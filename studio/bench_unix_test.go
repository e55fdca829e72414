//go:build unix

package studio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/track"
)

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// inFlightHistory is a data dir whose history holds 100,000 tasks, 20,000
// of them in flight (unknown to the sandbox, as after a reset: each read
// answers 404). The fixture is built once per machine; each run works on a
// copy, since the reads it records would in time mark the tasks lost.
func inFlightHistory(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "clapper-studio-bench-100000")
	path := filepath.Join(dir, "history.db")
	if _, err := os.Stat(path); err != nil {
		os.MkdirAll(dir, 0o700)
		now := time.Now()
		if err := history.WriteFixture(path+".tmp", 100_000, now.AddDate(-1, 0, 0), now); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	work := b.TempDir()
	if err := os.WriteFile(filepath.Join(work, "history.db"), data, 0o600); err != nil {
		b.Fatal(err)
	}
	return work
}

// A running studio left alone: the CPU it uses per second of wall time
// (core-%), with nothing in flight, with 5 off-peak tasks waiting in
// queueing, and with 20,000 tasks in flight. Each op is one second of idle
// after the studio loaded what it follows and running tasks came due
// for reads. Targets: 5 queued within 1.2x of
// nothing in flight; 20,000 in flight under 5% of a core.
func BenchmarkIdleStudio(b *testing.B) {
	for _, c := range []struct {
		name   string
		dir    func(b *testing.B) string
		queued int
	}{
		{"nothing", func(b *testing.B) string { return b.TempDir() }, 0},
		{"5-queued", func(b *testing.B) string { return b.TempDir() }, 5},
		{"20k-in-flight", inFlightHistory, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg := Config{DataDir: c.dir(b), Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
			// Running tasks come due for a read within a second or two, so
			// the window sees the watcher reading at its full budget.
			sched := track.DefaultSchedule()
			sched.Priors = map[api.Operation]time.Duration{}
			for _, op := range api.Operations() {
				sched.Priors[op] = 3 * time.Second
			}
			s, err := Open(ctx, cfg, Options{Sandbox: &sandbox.Config{StatePath: filepath.Join(b.TempDir(), "sb.json"), Seed: 1},
				Watcher: track.WatcherOptions{Schedule: sched}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for i := range c.queued {
				if _, err := s.tracker.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq1", "prompt": fmt.Sprint("dawn ", i),
					"duration": 5, "off_peak": true, "audio": false}); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Start(ctx); err != nil {
				b.Fatal(err)
			}
			var changes atomic.Int64
			go func() { // what a front end does: take every event and change
				for {
					select {
					case <-s.Events():
					case <-s.Changes():
						changes.Add(1)
					case <-ctx.Done():
						return
					}
				}
			}()
			for s.watcher.Watching() < c.queued {
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(3 * time.Second) // the load and the first reads
			var used, wall time.Duration
			changes.Store(0)
			reads := s.watcher.Requests()
			for b.Loop() {
				start, cpu := time.Now(), cpuTime(b)
				time.Sleep(time.Second)
				used += cpuTime(b) - cpu
				wall += time.Since(start)
			}
			b.ReportMetric(100*used.Seconds()/wall.Seconds(), "core-%")
			// Each change signal makes a front end re-read what it shows.
			b.ReportMetric(float64(changes.Load())/wall.Seconds(), "changes/s")
			// The watcher still reads, at its budget when much is due.
			b.ReportMetric(float64(s.watcher.Requests()-reads)/wall.Seconds(), "reads/s")
		})
	}
}
