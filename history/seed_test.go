package history

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A new history is seeded from an image built in memory, not migrated in
// place: it must be the very database that replaying every migration on the
// file gives, and a history file like any other (private, write-ahead
// logged, at the newest version).
func TestNewHistoryIsEveryMigrationReplayed(t *testing.T) {
	sqliteOnly(t)
	dir := t.TempDir()
	seeded := filepath.Join(dir, "new.db")
	s, err := Open(seeded)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// An empty file already there is migrated where it lies.
	replayed := filepath.Join(dir, "replayed.db")
	if err := os.WriteFile(replayed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Open(replayed)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	if got, want := schemaDump(t, s.w), schemaDump(t, r.w); got != want {
		t.Errorf("a new history's schema differs from every migration replayed:\n%s\nwant:\n%s", got, want)
	}
	if got := userVersion(t, s.w); got != len(migrations) {
		t.Errorf("a new history is at version %d, want %d", got, len(migrations))
	}
	var mode string
	if err := s.w.QueryRowContext(context.Background(), "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q (%v), want wal", mode, err)
	}
	if runtime.GOOS != "windows" {
		if info, err := os.Stat(seeded); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("a new history's mode: %v %v, want 0600", info.Mode(), err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".new-history-*"))
	if len(left) != 0 {
		t.Errorf("seeding left %v behind", left)
	}
}

// schemaDump is every table, index, trigger and view with its SQL, in order.
func schemaDump(t *testing.T, db *pool) string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(),
		`SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, table, sql string
		if err := rows.Scan(&typ, &name, &table, &sql); err != nil {
			t.Fatal(err)
		}
		b.WriteString(typ + " " + name + " on " + table + ": " + sql + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if b.Len() == 0 {
		t.Fatal("no schema at all")
	}
	return b.String()
}
