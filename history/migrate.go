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

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// migrations[i] holds the SQL that takes a history file's schema from
// version i to i+1; pgMigrations the same for a team's PostgreSQL database.
// The two trees carry the same numbers, and a test checks that they end
// with the same tables and columns.
var (
	migrations   = loadMigrations("sqlite")
	pgMigrations = loadMigrations("postgres")
)

// migrations are the steps of the store's dialect.
func (s *Store) migrations() []string { return s.d.migrations() }

func (d *dialect) migrations() []string {
	if d.postgres {
		return pgMigrations
	}
	return migrations
}

// loadMigrations reads migrations/DIALECT/NNNN_name.sql in order and panics
// on a gap or a duplicate: the files are part of the binary, so a mistake
// there is a build defect that every test run catches.
func loadMigrations(dialect string) []string {
	dir := path.Join("migrations", dialect)
	entries, err := migrationFS.ReadDir(dir)
	if err != nil {
		panic(err)
	}
	out := make([]string, len(entries))
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 1 || n > len(entries) || out[n-1] != "" {
			panic(fmt.Sprintf("history: migration %s/%q is not numbered 0001..%04d without gaps", dialect, e.Name(), len(entries)))
		}
		b, err := migrationFS.ReadFile(path.Join(dir, e.Name()))
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
	Found int // the database's schema version
	Known int // the newest version this binary knows
	// Where names the database: a file's path, or a URL without its
	// password.
	Where string
}

func (e *SchemaTooNewError) Error() string {
	where := ""
	if e.Where != "" {
		where = " " + e.Where
	}
	return fmt.Sprintf("history%s: database schema version %d is newer than this clapper knows (%d); upgrade clapper or use another history", where, e.Found, e.Known)
}

// migrationLock is the key of the advisory lock PostgreSQL migrations run
// under ("clapper" in ASCII), so that machines starting together migrate
// one after the other; the lock ends with each step's transaction.
const migrationLock = 0x636c6170706572

// migrate brings the schema to version target. SQLite keeps the version in
// PRAGMA user_version, in the database header: when the schema is current,
// Open's whole check is that one read; PostgreSQL keeps it in a one-row
// table. Each step runs in its own transaction together with its version
// bump, so a crash leaves the schema at a version boundary.
func migrate(ctx context.Context, db *pool, target int) error {
	v, err := db.d.schemaVersion(ctx, db)
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
	if !db.d.postgres {
		// A migration can write megabytes (0020 builds an index: 13 MB at
		// 100,000 tasks), which stay in the write-ahead log until the next
		// checkpoint resets it; a start after a kill reads the whole log to
		// rebuild its index. Copied back and emptied now, it costs nothing.
		// Best effort: a reader of another clapper may hold it back.
		db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	return nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// schemaVersion reads the schema's version; a database newer than this
// binary is a *SchemaTooNewError.
func (d *dialect) schemaVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	read := "PRAGMA user_version"
	if d.postgres {
		// A new database has no version table yet: version 0.
		var exists bool
		if err := q.QueryRowContext(ctx, `SELECT to_regclass('clapper_schema') IS NOT NULL`).Scan(&exists); err != nil {
			return 0, fmt.Errorf("history: reading schema version: %w", err)
		}
		if !exists {
			return 0, nil
		}
		read = `SELECT coalesce(max(version), 0) FROM clapper_schema`
	}
	if err := q.QueryRowContext(ctx, read).Scan(&v); err != nil {
		return 0, fmt.Errorf("history: reading schema version: %w", err)
	}
	if v > len(d.migrations()) {
		return v, &SchemaTooNewError{Found: v, Known: len(d.migrations())}
	}
	return v, nil
}

// migrateStep applies the next migration. It reads the version again inside
// the write transaction because another clapper may have migrated the
// database between our first read and our taking the lock.
func migrateStep(ctx context.Context, db *pool, target int) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("history: migrating: %w", err)
	}
	defer tx.Rollback()
	if db.d.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrationLock)); err != nil {
			return false, fmt.Errorf("history: migrating: %w", err)
		}
	}
	v, err := db.d.schemaVersion(ctx, tx)
	if err != nil || v >= target {
		return true, err
	}
	if _, err := tx.ExecContext(ctx, db.d.migrations()[v]); err != nil {
		return false, fmt.Errorf("history: migration %d: %w", v+1, err)
	}
	bump := fmt.Sprintf("PRAGMA user_version = %d", v+1) // PRAGMA takes no bound parameters; v+1 is ours
	if db.d.postgres {
		bump = fmt.Sprintf(`CREATE TABLE IF NOT EXISTS clapper_schema (version INTEGER NOT NULL);
			DELETE FROM clapper_schema; INSERT INTO clapper_schema (version) VALUES (%d)`, v+1)
	}
	if _, err := tx.ExecContext(ctx, bump); err != nil {
		return false, fmt.Errorf("history: migration %d: %w", v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("history: migration %d: %w", v+1, err)
	}
	return v+1 >= target, nil
}
