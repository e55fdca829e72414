package history

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// fixtureTasks is the size of the benchmarks' history file: a large
// history's by default, -tasks=1000000 for ten times that.
var fixtureTasks = flag.Int("tasks", 100_000, "the number of tasks in the benchmarks' history file")

var (
	fixtureOnce sync.Once
	fixturePath string
	fixtureErr  error
)

// fixture is a history of fixtureTasks tasks spread over a year (each with
// its own prompt in its request), built once per machine (WriteFixture: 15
// seconds for 100,000 tasks, a few minutes for a million) and kept in the
// temp dir for the next run; Open brings it to the current schema.
func fixture(b *testing.B) string {
	b.Helper()
	fixtureOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("clapper-history-bench-%d-prompts", *fixtureTasks))
		fixturePath = filepath.Join(dir, "history.db")
		if _, err := os.Stat(fixturePath); err == nil {
			return
		}
		start := time.Now()
		if fixtureErr = os.MkdirAll(dir, 0o700); fixtureErr != nil {
			return
		}
		if fixtureErr = WriteFixture(fixturePath+".tmp", *fixtureTasks, t0.AddDate(-1, 0, 0), t0); fixtureErr != nil {
			return
		}
		fixtureErr = os.Rename(fixturePath+".tmp", fixturePath)
		b.Logf("fixture of %d tasks built in %v", *fixtureTasks, time.Since(start).Round(time.Millisecond))
	})
	if fixtureErr != nil {
		b.Fatal(fixtureErr)
	}
	return fixturePath
}

func openFixture(b *testing.B) *Store {
	b.Helper()
	s, err := Open(fixture(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkTasksPage(b *testing.B) {
	s, n := benchStore(b)
	ctx := context.Background()
	// A cursor halfway down the list, to show a deep page costs as much as
	// the first (a page is at most maxPageSize rows: walk there).
	var mid record.Page
	for seen := 0; seen < n/2; seen += maxPageSize {
		var err error
		if mid, err = s.Tasks(ctx, record.Filter{Limit: maxPageSize, After: mid.Next}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		f    record.Filter
	}{
		{"first", record.Filter{}},
		{"deep", record.Filter{After: mid.Next}},
		{"state", record.Filter{States: []string{api.StateFailed}}},
		{"op+model", record.Filter{Operations: []api.Operation{api.OpImg2Video}, Models: []string{"svcq2"}}},
		{"text", record.Filter{Text: "neon robot"}},
		{"month", record.Filter{From: t0.AddDate(0, -2, 0), To: t0.AddDate(0, -1, 0)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				p, err := s.Tasks(ctx, c.f)
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Tasks) != record.DefaultPageSize {
					b.Fatalf("page of %d", len(p.Tasks))
				}
			}
		})
	}
}

func BenchmarkCountsByState(b *testing.B) {
	s, _ := benchStore(b)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		f    record.Filter
	}{
		{"all", record.Filter{}},
		{"operation", record.Filter{Operations: []api.Operation{api.OpImg2Video}}},
		{"month", record.Filter{From: t0.AddDate(0, -2, 0), To: t0.AddDate(0, -1, 0)}},
		{"text", record.Filter{Text: "neon robot"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				counts, err := s.CountsByState(ctx, c.f)
				if err != nil {
					b.Fatal(err)
				}
				if len(counts) == 0 {
					b.Fatal("no counts")
				}
			}
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	path := fixture(b)
	for b.Loop() {
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		// The first query proves the store is usable, not just allocated.
		if _, err := s.Tasks(context.Background(), record.Filter{Limit: 1}); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// The History page's totals and charts (target: each under 50 ms): counts
// by state for a text search, for a state and for a year; for a common word
// over a year its count (the Tasks page's filter) and its counts with
// credits (the History page's totals line); the totals of a word of two
// letters in three tasks of five, which no index finds, and of two common
// words; credits by day and by model over a year. -benchmem shows that the
// matches pass through: the bytes of a search do not grow with them.
func BenchmarkHistoryTotals(b *testing.B) {
	s, _ := benchStore(b)
	ctx := context.Background()
	from, to := t0.AddDate(-1, 0, 0), t0.Add(time.Hour)
	for _, c := range []struct {
		name string
		run  func() (int, error)
	}{
		{"text-counts", func() (int, error) {
			m, err := s.CountsByState(ctx, record.Filter{Text: "neon robot"})
			return len(m), err
		}},
		{"state-counts", func() (int, error) {
			m, err := s.CountsByState(ctx, record.Filter{States: []string{api.StateSuccess}})
			return len(m), err
		}},
		{"broad-totals", func() (int, error) {
			t, err := s.TotalsMatching(ctx, record.Filter{Text: "ne"}, time.Time{}, time.Time{})
			return len(t.States), err
		}},
		{"text-totals", func() (int, error) {
			t, err := s.TotalsMatching(ctx, record.Filter{Text: "neon robot"}, time.Time{}, time.Time{})
			return len(t.States), err
		}},
		{"year-counts", func() (int, error) {
			m, err := s.CountsByState(ctx, record.Filter{From: from, To: to})
			return len(m), err
		}},
		{"year-text-counts", func() (int, error) {
			m, err := s.CountsByState(ctx, record.Filter{Text: "neon", From: from, To: to})
			return len(m), err
		}},
		{"year-text-count", func() (int, error) { return s.Count(ctx, record.Filter{Text: "neon", From: from, To: to}) }},
		{"year-text-totals", func() (int, error) {
			t, err := s.TotalsMatching(ctx, record.Filter{Text: "neon", From: from, To: to}, time.Time{}, time.Time{})
			return len(t.States), err
		}},
		{"credits-by-day", func() (int, error) { d, err := s.CreditsByDay(ctx, from, to); return len(d), err }},
		{"credits-by-model", func() (int, error) { m, err := s.CreditsByModel(ctx, from, to); return len(m), err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if n, err := c.run(); err != nil || n == 0 {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
		})
	}
}
