package history

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"clapper/api"
)

// jobsFixture is a history of n multi-scene jobs, each a task with three
// scenes of two versions and a composition, plus n/10 jobs read by id that
// no task made, written in one transaction.
func jobsFixture(b *testing.B, n int) *Store {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	base := t0.AddDate(-1, 0, 0).UnixMilli()
	exec := func(q string, args ...any) {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n + n/10 {
		job, at := fmt.Sprintf("job-%06d", i), base+int64(i)*60_000
		if i < n {
			exec(`INSERT INTO tasks (task_id, operation, model, prompt, state, request, created_at, updated_at)
				VALUES (?, ?, '', ?, ?, '{}', ?, ?)`, job, api.OpGeneralOneClick, "a day at sea "+job, api.StateSuccess, at, at)
		}
		exec(`INSERT INTO jobs (id, state, created_at, fetched_at) VALUES (?, ?, ?, ?)`, job, api.StateSuccess, at, at)
		for r := range 4 {
			typ := api.RecordGenerateVideo
			if r == 3 {
				typ = "compose"
			}
			exec(`INSERT INTO job_records (job, type, idx) VALUES (?, ?, ?)`, job, typ, r)
			for v := range 2 {
				exec(`INSERT INTO sub_jobs (id, job, record_type, record_idx, seq, state, fetched_at)
					VALUES (?, ?, ?, ?, ?, ?, ?)`, fmt.Sprintf("%s-%d-%d", job, r, v), job, typ, r, v, api.StateSuccess, at)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return s
}

// The Scenes page's list of 500 jobs costs in proportion to the rows shown,
// not to every job in history (target: the same at 10,000 jobs as at 1,000).
func BenchmarkJobSummaries500(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := jobsFixture(b, n)
			ctx := context.Background()
			for b.Loop() {
				sums, err := s.JobSummaries(ctx, 500)
				if err != nil {
					b.Fatal(err)
				}
				if len(sums) != 500 || sums[0].Scenes != 3 || sums[0].Versions != 6 {
					b.Fatalf("%d summaries, first %+v", len(sums), sums[0])
				}
			}
		})
	}
}
