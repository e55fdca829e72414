package history

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/internal/pgtest"
	"clapper/record"
)

// pgFixtureTasks is the team database's benchmark size: by default ten
// times a large history file's, as a studio's shared history grows to;
// -pg-tasks=100000 compares the two stores at one size.
var pgFixtureTasks = flag.Int("pg-tasks", 1_000_000, "the number of tasks in the benchmarks' team database (its template: clapper_bench_N)")

// pgFixture is a team database of -pg-tasks tasks over a year, built
// once per test binary: the rows in one set-based INSERT with the triggers
// off, then the counts, totals, prompts, search table and change sequence
// they would have kept, computed over the whole table as a migration's
// backfill does; vacuumed, as autovacuum leaves a database in use.
func pgFixture(b *testing.B) string {
	b.Helper()
	srv := pgtest.Get(b)
	n := *pgFixtureTasks
	return srv.Database(b, fmt.Sprintf("clapper_bench_%d", n), func(url string) error {
		start := time.Now()
		s, err := OpenPostgres(context.Background(), url, machineFile(b))
		if err != nil {
			return err
		}
		defer s.Close()
		words := "'{" + strings.Join(fixtureWords, ",") + "}'::text[]"
		ops, models, states := pgArray(fixtureOps), pgArray(fixtureModels), pgArray(fixtureStates)
		from, to := t0.AddDate(-1, 0, 0).UnixMilli(), t0.UnixMilli()
		step := (to - from) / int64(n)
		stmts := []string{
			`ALTER TABLE tasks DISABLE TRIGGER USER`,
			fmt.Sprintf(`INSERT INTO tasks (id, task_id, operation, model, prompt, state, credits, request,
				created_at, updated_at, change_seq)
			SELECT i, CASE WHEN st = 'rejected' THEN NULL ELSE lpad(to_hex((i * 2654435761) %% 4294967296), 8, '0') || lpad(to_hex(i), 8, '0') END,
				op, model, prompt, st, abs(hashint8extended(i, 6) %% 60), json_build_object('prompt', prompt)::text,
				%d + i * %d, %d + i * %d, i
			FROM (SELECT i, (%s)[1 + abs(hashint8extended(i, 1) %% %d)] AS st, (%s)[1 + abs(hashint8extended(i, 2) %% %d)] AS op,
				(%s)[1 + abs(hashint8extended(i, 3) %% %d)] AS model,
				(SELECT string_agg((%s)[1 + abs(hashint8extended(i * 100 + k, 4) %% %d)], ' ')
					FROM generate_series(1, 8 + abs(hashint8extended(i, 5) %% 10)) AS k) AS prompt
				FROM generate_series(1::bigint, %d) AS i) AS g`,
				from, step, from, step, states, len(fixtureStates), ops, len(fixtureOps), models, len(fixtureModels),
				words, len(fixtureWords), n),
			fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('tasks', 'id'), %d), setval('tasks_change_seq_numbers', %d)`,
				n, n),
			`INSERT INTO task_counts (state, operation, model, n)
				SELECT state, operation, model, count(*) FROM tasks GROUP BY state, operation, model`,
			`INSERT INTO state_days (day, state, n) SELECT created_at / 86400000, state, count(*) FROM tasks GROUP BY 1, 2`,
			`INSERT INTO model_days (day, model, tasks, credits)
				SELECT created_at / 86400000, CASE model WHEN '' THEN operation ELSE model END, count(*), sum(credits)
				FROM tasks WHERE task_id IS NOT NULL GROUP BY 1, 2`,
			`INSERT INTO credit_hours (hour, tasks, credits)
				SELECT created_at / 3600000, count(*), sum(credits) FROM tasks WHERE task_id IS NOT NULL GROUP BY 1`,
			`INSERT INTO prompts (operation, text, folded, chars, used_at)
				SELECT operation, prompt, lower(prompt), clapper_chars(lower(prompt)), max(created_at)
				FROM tasks GROUP BY operation, prompt`,
			`INSERT INTO tasks_fts (id, created_at, state, credits, operation, model, sent_by, words)
				SELECT id, created_at, state, credits, operation, model, sent_by,
					lower(prompt || ' ' || coalesce(task_id, '') || ' ' || model || ' ' || operation)
				FROM tasks`,
			`ALTER TABLE tasks ENABLE TRIGGER USER`,
			`VACUUM ANALYZE`,
		}
		for _, q := range stmts {
			if _, err := s.w.DB.ExecContext(context.Background(), q); err != nil {
				return fmt.Errorf("%.60s: %w", q, err)
			}
		}
		b.Logf("team fixture of %d tasks built in %v", n, time.Since(start).Round(time.Millisecond))
		return nil
	})
}

func pgArray[T ~string](vals []T) string {
	quoted := make([]string, len(vals))
	for i, v := range vals {
		quoted[i] = `"` + string(v) + `"`
	}
	return "'{" + strings.Join(quoted, ",") + "}'::text[]"
}

// benchStore is the fixture of the backend under test: a history file of
// -tasks tasks, or a team database of -pg-tasks (1,000,000).
func benchStore(b *testing.B) (*Store, int) {
	b.Helper()
	if backend != "postgres" {
		return openFixture(b), *fixtureTasks
	}
	s, err := OpenPostgres(context.Background(), pgFixture(b), machineFile(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, *pgFixtureTasks
}

// A state change written by one machine, to the row read again on
// another: the notification (or, on a file, the change probe looking
// every 10 ms) and the one-row read a screen makes of it.
func BenchmarkChangeToScreen(b *testing.B) {
	s, _ := benchStore(b)
	var other *Store
	if backend == "postgres" {
		o, err := OpenPostgres(context.Background(), s.url, machineFile(b))
		if err != nil {
			b.Fatal(err)
		}
		other = o
	} else {
		o, err := Open(s.where)
		if err != nil {
			b.Fatal(err)
		}
		other = o
	}
	defer other.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 1)
	go s.WatchChanges(ctx, 10*time.Millisecond, record.ChangeWatch{Changed: func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	page, err := s.Tasks(ctx, record.Filter{States: []string{api.StateProcessing}, Limit: 1})
	if err != nil || len(page.Tasks) == 0 {
		b.Fatalf("no task in flight: %v", err)
	}
	id := page.Tasks[0].TaskID
	time.Sleep(100 * time.Millisecond) // the listener's first catch-up
	for len(changed) > 0 {
		<-changed
	}
	// From the progress a run before left on the kept history file: a
	// result that says what the row holds writes nothing, and the loop
	// would wait for a change that never comes.
	progress := int64(0)
	if p := page.Tasks[0].Progress; p != nil {
		progress = *p
	}
	for b.Loop() {
		progress = progress%99 + 1
		if _, err := other.ApplyResult(ctx, id, record.Update{State: api.StateProcessing, Progress: &progress}); err != nil {
			b.Fatal(err)
		}
		<-changed
		rows, err := s.TaskSummaries(ctx, []string{id})
		if err != nil || len(rows) != 1 || rows[0].Progress == nil || *rows[0].Progress != progress {
			b.Fatalf("read %+v %v", rows, err)
		}
	}
}
