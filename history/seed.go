package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// A new history file starts as a copy of an empty database already at the
// newest schema, built once per process in memory. Replaying every
// migration on the file itself costs tens of milliseconds of SQLite parsing
// and a sync per step on the first start, and, in the tests, which open a
// new history for nearly every case, most of the suite's time under the
// race detector.
var fresh struct {
	once  sync.Once
	image []byte
	err   error
}

// freshImage is the bytes of an empty history at the newest schema.
func freshImage(driver string) ([]byte, error) {
	fresh.once.Do(func() {
		fresh.image, fresh.err = buildFreshImage(driver)
	})
	return fresh.image, fresh.err
}

func buildFreshImage(driver string) ([]byte, error) {
	mem, err := sql.Open(driver, ":memory:")
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	// One connection: each connection to ":memory:" is a database of its own.
	mem.SetMaxOpenConns(1)
	db := &pool{DB: mem, d: sqliteDialect}
	if err := migrate(context.Background(), db, len(migrations)); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "clapper-fresh-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "fresh.db")
	if _, err := mem.Exec("VACUUM INTO ?", out); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

// seedNew creates the history file at abs from the fresh image. It never
// replaces a file: when another clapper created abs first, seedNew leaves
// theirs and reports fs.ErrExist.
func seedNew(abs, driver string) error {
	image, err := freshImage(driver)
	if err != nil {
		return fmt.Errorf("history: preparing a new history: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), ".new-history-*")
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(image); err != nil {
		tmp.Close()
		return fmt.Errorf("history: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	// A link, not a rename: it fails when abs exists, so two clappers
	// starting on a new history together never replace each other's file.
	if err := os.Link(tmp.Name(), abs); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fs.ErrExist
		}
		return fmt.Errorf("history: %w", err)
	}
	return nil
}
