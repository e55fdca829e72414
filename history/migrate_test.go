package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// seedSQL inserts one representative row into every table, in the SQL of
// schema version v (the progress column exists from version 3).
func seedSQL(v int) string {
	progressCol, progressVal := "", ""
	if v >= 3 {
		progressCol, progressVal = ", progress", ", 40"
	}
	return fmt.Sprintf(`
INSERT INTO tasks (id, task_id, operation, model, prompt, state, credits, request, echo,
	payload, off_peak, off_peak_deadline, created_at, updated_at%[1]s)
VALUES (1, 'tk-1', 'img2video', 'svcq2', 'a red kite over the dunes', 'success', 25,
	'{"model":"svcq2","images":["data:image/png;sha256=ab;bytes=3"]}', '{"task_id":"tk-1"}',
	'pl', 1, 1741257000000, 1741084200000, 1741084300000%[2]s);
INSERT INTO tasks (id, operation, model, prompt, state, request, created_at, updated_at,
	reject_status, reject_reason, reject_fields, reject_retryable)
VALUES (2, 'text2video', 'svcq1', 'quota', 'rejected', '{}', 1741084400000, 1741084400000,
	429, 'QuotaExceeded', '["model"]', 1);
INSERT INTO pending_bodies (task, body) VALUES (2, X'7B7D');
INSERT INTO media_refs (task, path, content_type, sha256, bytes) VALUES (1, '$.images[0]', 'image/png', 'ab', 3);
INSERT INTO task_events (task, from_state, to_state, at, raw) VALUES
	(1, '', 'submitting', 1741084200000, NULL),
	(1, 'submitting', 'created', 1741084201000, '{"task_id":"tk-1"}'),
	(1, 'created', 'success', 1741084300000, '{"state":"success"}');
INSERT INTO creations (task, idx, creation_id, url, url_expires_at, updated_at)
VALUES (1, 0, 'c-0', 'https://r/0.mp4', 1741170700000, 1741084300000);
INSERT INTO downloads (task, idx, kind, path, bytes, total, status, created_at, updated_at)
VALUES (1, 0, 'url', '/dl/0.mp4', 10, 100, 'running', 1741084300000, 1741084300000);
INSERT INTO voices (voice_id, clone_task_id, created_at, demo_audio, expires_at)
VALUES ('narrator01', 'tk-v', 1741084200000, 'https://r/demo.wav', 1741689000000);
INSERT INTO jobs (id, type, state, signed_url, fetched_at) VALUES ('job-1', 'one_click', 'processing', '', 1741084200000);
INSERT INTO job_records (job, type, idx) VALUES ('job-1', 'generate_video', 0);
INSERT INTO sub_jobs (id, job, record_type, record_idx, seq, type, state, prompt, fetched_at)
VALUES ('sj-1', 'job-1', 'generate_video', 0, 0, 'generate_video', 'success', 'scene one', 1741084200000);
`, progressCol, progressVal)
}

func rawDB(t *testing.T, path string) *pool {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, true, busyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return &pool{DB: db, d: sqliteDialect}
}

func userVersion(t *testing.T, db *pool) int {
	t.Helper()
	v, err := sqliteDialect.schemaVersion(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrationsAreNumberedAndReal(t *testing.T) {
	if len(migrations) < 3 {
		t.Fatalf("%d migrations, want at least 3", len(migrations))
	}
	for i, m := range migrations {
		if strings.TrimSpace(m) == "" {
			t.Errorf("migration %d is empty", i+1)
		}
	}
}

// TestMigrateFromEveryVersion applies 1..k, seeds rows in version k's SQL,
// then opens with the store: the schema reaches the latest version and every
// row is still there and readable through the API.
func TestMigrateFromEveryVersion(t *testing.T) {
	ctx := context.Background()
	for k := 0; k <= len(migrations); k++ {
		t.Run(fmt.Sprintf("from_%d", k), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "h.db")
			db := rawDB(t, path)
			if err := migrate(ctx, db, k); err != nil {
				t.Fatal(err)
			}
			if got := userVersion(t, db); got != k {
				t.Fatalf("after migrating to %d: user_version %d", k, got)
			}
			seeded := k > 0
			if seeded {
				if _, err := db.ExecContext(ctx, seedSQL(k)); err != nil {
					t.Fatalf("seeding version %d: %v", k, err)
				}
			}
			db.Close()

			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := userVersion(t, s.w); got != len(migrations) {
				t.Fatalf("user_version %d after Open, want %d", got, len(migrations))
			}
			if !seeded {
				p, err := s.Tasks(ctx, record.Filter{})
				if err != nil || len(p.Tasks) != 0 {
					t.Fatalf("empty database: %v %v", p, err)
				}
				return
			}
			checkSeed(t, s, k)
		})
	}
}

func checkSeed(t *testing.T, s *Store, k int) {
	t.Helper()
	ctx := context.Background()
	task, err := s.TaskByID(ctx, "tk-1")
	if err != nil {
		t.Fatal(err)
	}
	if task.Prompt != "a red kite over the dunes" || task.State != "success" || task.Credits != 25 ||
		!task.OffPeak || task.OffPeakDeadline.UnixMilli() != 1741257000000 || task.Payload != "pl" {
		t.Errorf("task: %+v", task)
	}
	if wantProgress := k >= 3; (task.Progress != nil) != wantProgress || (wantProgress && *task.Progress != 40) {
		t.Errorf("progress %v, seeded at version %d", task.Progress, k)
	}
	if len(task.Events) != 3 || task.Events[2].To != "success" || len(task.Creations) != 1 ||
		task.Creations[0].URL != "https://r/0.mp4" || len(task.Media) != 1 {
		t.Errorf("children: events %+v creations %+v media %+v", task.Events, task.Creations, task.Media)
	}
	rej, err := s.Task(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rej.Rejection == nil || rej.Rejection.Status != 429 || !rej.Rejection.Retryable ||
		!slices.Equal(rej.Rejection.Fields, []string{"model"}) || !rej.Pending {
		t.Errorf("rejected task: %+v %+v", rej, rej.Rejection)
	}
	// The search index built by a later migration must cover rows that
	// existed before it.
	p, err := s.Tasks(ctx, record.Filter{Text: "kite"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 1 || p.Tasks[0].TaskID != "tk-1" {
		t.Errorf("search after migration: %+v", p.Tasks)
	}
	dl, err := s.PendingDownloads(ctx)
	if err != nil || len(dl) != 1 || dl[0].Bytes != 10 || dl[0].URL != "https://r/0.mp4" {
		t.Errorf("downloads: %+v %v", dl, err)
	}
	vs, err := s.Voices(ctx)
	if err != nil || len(vs) != 1 || vs[0].VoiceID != "narrator01" {
		t.Errorf("voices: %+v %v", vs, err)
	}
	j, err := s.Job(ctx, "job-1")
	if err != nil || len(j.Scenes) != 1 || j.Scenes[0].Current().Prompt != "scene one" {
		t.Errorf("job: %+v %v", j, err)
	}
	// Counts kept by a later migration's triggers start from the old rows.
	counts, err := s.CountsByState(ctx, record.Filter{})
	if err != nil || len(counts) != 2 || counts["success"] != 1 || counts[record.StateRejected] != 1 {
		t.Errorf("counts after migration: %v %v", counts, err)
	}
	// New rows still work on the migrated schema, search triggers included.
	id, err := s.BeginSubmit(ctx, record.Intent{Operation: "text2video", Body: []byte(`{"prompt":"after migration"}`)})
	if err != nil {
		t.Fatal(err)
	}
	p, err = s.Tasks(ctx, record.Filter{Text: "migration"})
	if err != nil || len(p.Tasks) != 1 || p.Tasks[0].LocalID != id {
		t.Errorf("search for a new row: %+v %v", p.Tasks, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	db := rawDB(t, path)
	future := len(migrations) + 1
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", future)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a newer schema")
	}
	var tooNew *SchemaTooNewError
	if !errors.As(err, &tooNew) || tooNew.Found != future || tooNew.Known != len(migrations) {
		t.Fatalf("error %v (%T), want *SchemaTooNewError{%d, %d}", err, err, future, len(migrations))
	}
	if !strings.Contains(err.Error(), "newer than this clapper knows") {
		t.Errorf("unclear message: %v", err)
	}
	// Refusing must not have touched the file.
	db = rawDB(t, path)
	if got := userVersion2(t, db); got != future {
		t.Errorf("user_version %d after refusal, want %d", got, future)
	}
}

// userVersion2 reads the version without schemaVersion's bound check.
func userVersion2(t *testing.T, db *pool) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A failing migration must leave the file at the previous version with none
// of its statements applied.
func TestFailedMigrationRollsBack(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations = saved })
	migrations = append(slices.Clone(saved), "CREATE TABLE half_done (x); THIS IS NOT SQL;")

	path := filepath.Join(t.TempDir(), "h.db")
	if _, err := Open(path); err == nil {
		t.Fatal("Open succeeded with a broken migration")
	}
	db := rawDB(t, path)
	if got := userVersion2(t, db); got != len(saved) {
		t.Errorf("user_version %d, want %d", got, len(saved))
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("half_done exists (%d, %v): the failed migration was not rolled back", n, err)
	}
}

// Two processes opening an old file at once must not both run a migration.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := Open(path)
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// Opening a history that is current reads its version and writes nothing,
// so a second clapper starts at once while the first is in the middle of a
// write.
func TestOpenCurrentWhileAnotherWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	writer, err := rawDB(t, path).Begin() // IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Rollback()
	opened := make(chan error, 1)
	go func() {
		s, err := Open(path)
		if err == nil {
			err = s.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second): // the busy timeout is 5 s
		writer.Rollback()
		t.Fatalf("Open waited for the other writer: %v", <-opened)
	}
}

// What a migration wrote leaves the write-ahead log, which is emptied: a
// start after a kill would otherwise read all of it (13 MB for 0020 at
// 100,000 tasks) before its first read.
func TestMigrationEmptiesTheWriteAheadLog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	db := rawDB(t, path)
	if err := migrate(ctx, db, len(migrations)-1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, seedSQL(len(migrations)-1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() != 0 {
		t.Errorf("the write-ahead log holds %d bytes after migrating", info.Size())
	}
}
