package history

import (
	"context"
	"database/sql"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/internal/pgtest"
	"clapper/record"
)

// Both migration trees carry the same numbers and end with the same tables
// and columns: a team's database holds what a history file holds, but for
// what belongs to one machine, which each copy keeps in a history file of
// its own (machine.go) and the team learns of as saved_copies (the rows
// from before, old_machine_*, wait there for their machine). The other
// difference is the search index, tasks_fts, which SQLite keeps as FTS5
// tables and PostgreSQL as a table with a trigram index.
func TestMigrationTreesDefineTheSameSchema(t *testing.T) {
	if len(migrations) != len(pgMigrations) {
		t.Fatalf("%d SQLite migrations, %d PostgreSQL ones: every number is in both trees", len(migrations), len(pgMigrations))
	}
	ctx := context.Background()
	lite, err := Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	url := pgtest.Get(t).Database(t, "", nil)
	pg, err := OpenPostgres(ctx, url, machineFile(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()

	columns := func(s *Store, query string) []string {
		t.Helper()
		rows, err := s.r.QueryContext(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var table, column string
			if err := rows.Scan(&table, &column); err != nil {
				t.Fatal(err)
			}
			out = append(out, table+"."+column)
		}
		slices.Sort(out)
		return out
	}
	inLite := columns(lite, `SELECT m.name, c.name FROM sqlite_master m, pragma_table_info(m.name) c
		WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE 'tasks_fts%'`)
	inPG := columns(pg, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name NOT IN ('clapper_schema', 'tasks_fts')`)
	if len(inLite) < 100 {
		t.Fatalf("only %d columns read from SQLite: %v", len(inLite), inLite)
	}
	var onlyLite, onlyPG []string
	for _, c := range inLite {
		if !slices.Contains(inPG, c) {
			onlyLite = append(onlyLite, c)
		}
	}
	for _, c := range inPG {
		if !slices.Contains(inLite, c) {
			onlyPG = append(onlyPG, c)
		}
	}
	// A table that is one side's alone is so whole: each of its columns.
	apart := func(side string, only, all []string, tables ...string) []string {
		for _, table := range tables {
			of := func(c string) bool { return strings.HasPrefix(c, table+".") }
			if n := len(slices.DeleteFunc(slices.Clone(only), of)); n == len(only) || n != len(only)-count(all, of) {
				t.Errorf("%s is not %s's alone", table, side)
			}
			only = slices.DeleteFunc(only, of)
		}
		return only
	}
	onlyLite = apart("SQLite", onlyLite, inLite, "downloads", "version_downloads", "uploads")
	onlyPG = apart("PostgreSQL", onlyPG, inPG, "saved_copies",
		"old_machine_downloads", "old_machine_version_downloads", "old_machine_uploads")
	if len(onlyLite)+len(onlyPG) > 0 {
		t.Errorf("the schemas differ:\n  only in SQLite: %s\n  only in PostgreSQL: %s",
			strings.Join(onlyLite, ", "), strings.Join(onlyPG, ", "))
	}
}

func count(cols []string, of func(string) bool) int {
	n := 0
	for _, c := range cols {
		if of(c) {
			n++
		}
	}
	return n
}

// A team database with tasks from before PostgreSQL's search table (0025)
// finds them there after migrating: by words, by a word too short for the
// trigram index, with their totals; and keeps the table in step with what
// changes after.
func TestTeamSearchTableHoldsTheTasksBefore(t *testing.T) {
	ctx := context.Background()
	url, old := teamDatabaseAt(t, 24)
	if _, err := old.ExecContext(ctx, `INSERT INTO tasks (task_id, operation, model, prompt, state, credits, request, created_at, updated_at)
		VALUES ('tk-1', 'text2video', 'svcq1', 'A Red KITE', 'success', 25, '{}', 1741084200000, 1741084200000),
		       ('tk-2', 'img2video', 'svcq2', 'a blue whale', 'processing', 0, '{}', 1741084300000, 1741084300000)`); err != nil {
		t.Fatal(err)
	}
	s, err := OpenPostgres(ctx, url, machineFile(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(f record.Filter, want map[string]int, credits int64) {
		t.Helper()
		totals, err := s.TotalsMatching(ctx, f, time.Time{}, time.Time{})
		if err != nil || !maps.Equal(totals.States, want) || totals.Credits != credits {
			t.Errorf("%+v: totals %+v (%v), want %v and %d credits", f, totals, err, want, credits)
		}
		p, err := s.Tasks(ctx, f)
		if err != nil || len(p.Tasks) != totals.Tasks() {
			t.Errorf("%+v: a page of %d (%v), totals of %d", f, len(p.Tasks), err, totals.Tasks())
		}
	}
	check(record.Filter{Text: "kite"}, map[string]int{"success": 1}, 25)
	check(record.Filter{Text: "tk-2"}, map[string]int{"processing": 1}, 0)
	check(record.Filter{Text: "a"}, map[string]int{"success": 1, "processing": 1}, 25)
	if _, err := s.ApplyResult(ctx, "tk-2", record.Update{State: "success"}); err != nil {
		t.Fatal(err)
	}
	check(record.Filter{Text: "whale", States: []string{"success"}}, map[string]int{"success": 1}, 0)
}

// A team database from before the machine files (0031) keeps what its
// downloads said of saves: "saved on NAME", for the machines that finished
// one, not for one that had only started.
func TestTeamSavesFromBeforeMachineFilesAreKept(t *testing.T) {
	ctx := context.Background()
	url, old := teamDatabaseAt(t, 30)
	if _, err := old.ExecContext(ctx, `INSERT INTO tasks (id, task_id, operation, state, request, created_at, updated_at)
		VALUES (1, 'tk-1', 'text2video', 'success', '{}', 1741084200000, 1741084200000);
		INSERT INTO creations (task, idx, url, updated_at) VALUES (1, 0, 'https://r/0.mp4', 1741084300000);
		INSERT INTO downloads (task, idx, kind, path, status, created_at, updated_at, machine) VALUES
			(1, 0, 'url', '/a/0.mp4', 'done', 1741084300000, 1741084300000, 'ann@a'),
			(1, 0, 'cover', '/a/0.jpg', 'done', 1741084300000, 1741084400000, 'ann@a'),
			(1, 0, 'url', '/c/0.mp4', 'running', 1741084300000, 1741084300000, 'cy@c')`); err != nil {
		t.Fatal(err)
	}
	s, err := OpenPostgres(ctx, url, machineFile(t), WithMachine("bob@b"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task, err := s.TaskByID(ctx, "tk-1")
	if err != nil || !slices.Equal(task.SavedOn, []string{"ann@a"}) {
		t.Errorf("saved on %v (%v), want ann@a", task.SavedOn, err)
	}
}

// A team database from before the machine files (0031) hands each machine
// its own rows on its first start: the files it saved (the detail's path,
// the opener's trust), its save left half way, its scene versions' files
// and its upload cache; another machine's wait for it.
func TestTeamMachineRowsFromBeforeMachineFilesMoveToTheirMachine(t *testing.T) {
	ctx := context.Background()
	url, old := teamDatabaseAt(t, 30)
	if _, err := old.ExecContext(ctx, `INSERT INTO tasks (id, task_id, operation, state, request, created_at, updated_at)
		VALUES (1, 'tk-1', 'text2video', 'success', '{}', 1741084200000, 1741084200000),
		       (2, 'tk-2', 'text2video', 'success', '{}', 1741084200000, 1741084200000);
		INSERT INTO creations (task, idx, url, updated_at) VALUES (1, 0, 'https://r/1.mp4', 1741084300000),
			(2, 0, 'https://r/2.mp4', 1741084300000);
		INSERT INTO downloads (task, idx, kind, path, status, created_at, updated_at, machine) VALUES
			(1, 0, 'url', '/a/1.mp4', 'done', 1741084300000, 1741084300000, 'ann@a'),
			(2, 0, 'url', '/a/2.mp4', 'queued', 1741084300000, 1741084300000, 'ann@a'),
			(1, 0, 'url', '/c/1.mp4', 'done', 1741084300000, 1741084300000, 'cy@c');
		INSERT INTO jobs (id, fetched_at) VALUES ('job-1', 1741084300000);
		INSERT INTO version_downloads (sub_job, job, path, status, updated_at, machine) VALUES
			('sub-1', 'job-1', '/a/v1.mp4', 'failed', 1741084300000, 'ann@a');
		INSERT INTO uploads (sha256, uri, content_type, size, created_at, expires_at, machine) VALUES
			('ab12', 'https://u/ab12', 'image/png', 4, 1741084300000, 1741170700000, 'ann@a')`); err != nil {
		t.Fatal(err)
	}
	open := func(machine, file string) *Store {
		s, err := OpenPostgres(ctx, url, file, WithMachine(machine))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	annFile := machineFile(t)
	ann := open("ann@a", annFile)
	if ds, err := ann.Downloads(ctx, "tk-1"); err != nil || len(ds) != 1 || ds[0].Path != "/a/1.mp4" || ds[0].Status != record.DownloadDone {
		t.Errorf("ann's save of tk-1: %+v %v", ds, err)
	}
	if ok, err := ann.SavedFile(ctx, "/a/1.mp4"); !ok || err != nil {
		t.Errorf("ann's saved file is not hers: %v %v", ok, err)
	}
	if ds, err := ann.PendingDownloads(ctx); err != nil || len(ds) != 1 || ds[0].TaskID != "tk-2" || ds[0].URL != "https://r/2.mp4" {
		t.Errorf("ann's pending: %+v %v", ds, err)
	}
	if vs, err := ann.UnfinishedVersionDownloads(ctx, time.Hour); err != nil || len(vs) != 1 || vs[0].Path != "/a/v1.mp4" {
		t.Errorf("ann's version saves: %+v %v", vs, err)
	}
	if u, ok, err := ann.UploadOf(ctx, "ab12", time.UnixMilli(1741084300000)); !ok || err != nil || u.URI != "https://u/ab12" {
		t.Errorf("ann's upload: %+v %v %v", u, ok, err)
	}
	var left int
	if err := old.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM old_machine_downloads WHERE machine = 'ann@a') +
		(SELECT count(*) FROM old_machine_version_downloads) + (SELECT count(*) FROM old_machine_uploads)`).Scan(&left); err != nil || left != 0 {
		t.Errorf("ann's rows left in the team's database: %d %v", left, err)
	}
	// A second start of ann's, another machine, and cy's.
	if ds, err := open("ann@a", annFile).Downloads(ctx, "tk-1"); err != nil || len(ds) != 1 {
		t.Errorf("ann's second start: %+v %v", ds, err)
	}
	if ds, err := open("bob@b", machineFile(t)).Downloads(ctx, "tk-1"); err != nil || len(ds) != 0 {
		t.Errorf("bob's: %+v %v", ds, err)
	}
	if ds, err := open("cy@c", machineFile(t)).Downloads(ctx, "tk-1"); err != nil || len(ds) != 1 || ds[0].Path != "/c/1.mp4" {
		t.Errorf("cy's: %+v %v", ds, err)
	}
}

// teamDatabaseAt is a new team database migrated to version, as a clapper
// of that schema left it, and a pool on it to fill it with that version's
// rows.
func teamDatabaseAt(t *testing.T, version int) (string, *pool) {
	t.Helper()
	url := pgtest.Get(t).Database(t, "", nil)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	old := &pool{DB: db, d: postgresDialect}
	if err := migrate(context.Background(), old, version); err != nil {
		t.Fatal(err)
	}
	return url, old
}
