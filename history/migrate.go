package history

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations[i] holds the SQL that takes the schema from version i to i+1.
var migrations = loadMigrations()

// loadMigrations reads migrations/NNNN_name.sql in order and panics on a gap
// or a duplicate: the files are part of the binary, so a mistake there is a
// build defect that every test run catches.
func loadMigrations() []string {
	entries, err := migrationFS.ReadDir("migrations")
	if err != nil {
		panic(err)
	}
	out := make([]string, len(entries))
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 1 || n > len(entries) || out[n-1] != "" {
			panic(fmt.Sprintf("history: migration %q is not numbered 0001..%04d without gaps", e.Name(), len(entries)))
		}
		b, err := migrationFS.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			panic(err)
		}
		out[n-1] = string(b)
	}
	return out
}

// SchemaTooNewError is returned by Open for a database whose schema a newer
// clapper wrote: this binary cannot know what the newer version changed, so it
// refuses to read or write it rather than corrupt it.
type SchemaTooNewError struct {
	Found int // the database's PRAGMA user_version
	Known int // the newest version this binary knows
}

func (e *SchemaTooNewError) Error() string {
	return fmt.Sprintf("history: database schema version %d is newer than this clapper knows (%d); upgrade clapper or use another history file", e.Found, e.Known)
}

// migrate brings the schema to version target. The version lives in PRAGMA
// user_version, in the database header: when the schema is current, Open's
// whole check is that one read. Each step runs in its own transaction together
// with its version bump, so a crash leaves the schema at a version boundary.
func migrate(ctx context.Context, db *sql.DB, target int) error {
	v, err := schemaVersion(ctx, db)
	if err != nil || v >= target {
		return err
	}
	for {
		done, err := migrateStep(ctx, db, target)
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	// A migration can write megabytes (0020 builds an index: 13 MB at
	// 100,000 tasks), which stay in the write-ahead log until the next
	// checkpoint resets it; a start after a kill reads the whole log to
	// rebuild its index. Copied back and emptied now, it costs nothing.
	// Best effort: a reader of another clapper may hold it back.
	db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func schemaVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("history: reading schema version: %w", err)
	}
	if v > len(migrations) {
		return v, &SchemaTooNewError{Found: v, Known: len(migrations)}
	}
	return v, nil
}

// migrateStep applies the next migration. It reads the version again inside
// the write transaction because another clapper may have migrated the file
// between our first read and our taking the lock.
func migrateStep(ctx context.Context, db *sql.DB, target int) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("history: migrating: %w", err)
	}
	defer tx.Rollback()
	v, err := schemaVersion(ctx, tx)
	if err != nil || v >= target {
		return true, err
	}
	if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
		return false, fmt.Errorf("history: migration %d: %w", v+1, err)
	}
	// PRAGMA takes no bound parameters; v+1 is an int we computed.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, fmt.Errorf("history: migration %d: %w", v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("history: migration %d: %w", v+1, err)
	}
	return v+1 >= target, nil
}
