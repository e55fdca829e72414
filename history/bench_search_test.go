package history

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// The History screen's broad searches, as typed, and a state for
// comparison: the first rows the screen shows (one window page), and then
// the totals of the same search (counts by state and credits) with its
// charts, over the span the screen charts (chartSpan).
func BenchmarkBroadSearch(b *testing.B) {
	s, _ := benchStore(b)
	ctx := context.Background()
	from, to := t0.AddDate(-1, 0, 0), t0.Add(time.Hour)
	for _, c := range []struct {
		name string
		f    record.Filter
	}{
		{"ne", record.Filter{Text: "ne"}},
		{"neon", record.Filter{Text: "neon"}},
		{"neon-year", record.Filter{Text: "neon", From: from, To: to}},
		{"state", record.Filter{States: []string{api.StateFailed}}},
	} {
		b.Run(c.name+"/rows", func(b *testing.B) {
			f := c.f
			f.Limit = 100
			for b.Loop() {
				p, err := s.Tasks(ctx, f)
				if err != nil || len(p.Tasks) == 0 {
					b.Fatalf("%d rows, %v", len(p.Tasks), err)
				}
			}
		})
		b.Run(c.name+"/totals", func(b *testing.B) {
			for b.Loop() {
				from, to := chartSpan(c.f)
				t, err := s.TotalsMatching(ctx, c.f, from, to)
				if err != nil || len(t.States) == 0 || len(t.ByModel) == 0 {
					b.Fatalf("%v, %v", t, err)
				}
			}
		})
	}
	b.Run("ne/cancel", func(b *testing.B) { benchCancelledCount(b, s) })
}

// chartSpan is the span the History screen charts for a search on the
// fixture's last day: its dates, else the 14 days to the end of that day.
func chartSpan(f record.Filter) (time.Time, time.Time) {
	if !f.From.IsZero() {
		return f.From, f.To
	}
	y, m, d := t0.Date()
	to := time.Date(y, m, d, 0, 0, 0, 0, t0.Location()).AddDate(0, 0, 1)
	return to.AddDate(0, 0, -14), to
}

// benchCancelledCount cancels a broad search's count 20 ms in, as the next
// key typed does: the time from the cancel to the call's return
// (ms-to-return) and, on PostgreSQL, to the server no longer counting
// (ms-server-stops): a count typed over must not hold a core.
func benchCancelledCount(b *testing.B, s *Store) {
	var returned, stopped time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			from, to := chartSpan(record.Filter{})
			_, err := s.TotalsMatching(ctx, record.Filter{Text: "ne"}, from, to)
			done <- err
		}()
		time.Sleep(20 * time.Millisecond)
		at := time.Now()
		cancel()
		if s.d.postgres {
			// The server's side, watched while the call returns.
			for {
				var counting int
				if err := s.r.QueryRowContext(context.Background(), `SELECT count(*) FROM pg_stat_activity
					WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE ?`, "%WITH matches AS%").Scan(&counting); err != nil {
					b.Fatal(err)
				}
				if counting == 0 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			stopped += time.Since(at)
		}
		if err := <-done; err == nil {
			b.Fatal("the count ended before it was cancelled")
		}
		returned += time.Since(at)
	}
	b.ReportMetric(float64(returned.Microseconds())/1000/float64(b.N), "ms-to-return")
	if s.d.postgres {
		b.ReportMetric(float64(stopped.Microseconds())/1000/float64(b.N), "ms-server-stops")
	}
}
