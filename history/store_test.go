package history

import (
	"clapper/internal/pgtest"
	"clapper/record"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// t0 is the fake clock's start, a Tuesday, chosen away from day boundaries.
var t0 = time.Date(2025, 3, 4, 10, 30, 0, 0, time.UTC)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// backend is the database the store tests run on: the history file by
// default, a team's PostgreSQL with -store=postgres (make test runs the
// package both ways: one contract, two implementations). A flag, not the
// environment: the tests read nothing of the caller's environment. A
// runner that cannot pass a test binary its flags (make mutate's
// PostgreSQL pass over this package) builds with the tag
// clapper_store_postgres instead (store_postgres_test.go).
var backend string

// defaultBackend is -store's default when a build tag sets it.
var defaultBackend string

func TestMain(m *testing.M) {
	flag.StringVar(&backend, "store", cmp.Or(defaultBackend, "sqlite"), "the store under test: sqlite or postgres")
	flag.Parse()
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// newStore is an empty store of the backend under test, on a fake clock.
func newStore(t testing.TB) (*Store, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: t0}
	var (
		s   *Store
		err error
	)
	switch backend {
	case "", "sqlite":
		s, err = Open(filepath.Join(t.TempDir(), "history.db"), WithClock(clk.Now))
	case "postgres":
		return sharedDatabase(t)(WithClock(clk.Now)), clk
	default:
		t.Fatalf("-store=%q: sqlite or postgres", backend)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, clk
}

// sharedDatabase is a new database of the backend under test and a way to
// open stores on it: two stores play two processes on one history file, or
// two machines on one team database.
func sharedDatabase(t testing.TB) func(opts ...Option) *Store {
	t.Helper()
	var open func(opts ...Option) (*Store, error)
	if backend == "postgres" {
		url := pgtest.Get(t).Database(t, "clapper_history", func(url string) error {
			s, err := OpenPostgres(context.Background(), url, machineFile(t))
			if err == nil {
				s.Close()
			}
			return err
		})
		// Stores of one machine name share its machine file: two
		// processes of one machine, or two machines.
		dir := t.TempDir()
		open = func(opts ...Option) (*Store, error) {
			var named Store
			for _, o := range opts {
				o(&named)
			}
			file := filepath.Join(dir, "machine-"+named.machine+".db")
			return OpenPostgres(context.Background(), url, file, opts...)
		}
	} else {
		path := filepath.Join(t.TempDir(), "h.db")
		open = func(opts ...Option) (*Store, error) { return Open(path, opts...) }
	}
	return func(opts ...Option) *Store {
		t.Helper()
		s, err := open(opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// machineFile is a new machine file for a team's store (OpenPostgres).
func machineFile(t testing.TB) string {
	return filepath.Join(t.TempDir(), "machine.db")
}

// sqliteOnly skips a test of the history file itself (its pragmas, its
// locking) when the store tests run on PostgreSQL.
func sqliteOnly(t testing.TB) {
	t.Helper()
	if backend == "postgres" {
		t.Skip("a test of the SQLite history file")
	}
}

func TestOpenCreatesPrivateDirAndFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := filepath.Join(t.TempDir(), "data", "clapper")
	path := filepath.Join(dir, "history.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A write makes SQLite create the -wal file, which must be as private.
	if _, err := s.BeginSubmit(context.Background(), record.Intent{Operation: "text2video", Body: []byte(`{"prompt":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want os.FileMode
	}{
		{dir, 0o700},
		{filepath.Dir(dir), 0o700},
		{path, 0o600},
		{path + "-wal", 0o600},
	} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s: mode %v, want %v", c.path, got, c.want)
		}
	}
}

func TestOpenSetsPragmas(t *testing.T) {
	sqliteOnly(t)
	s, _ := newStore(t)
	ctx := context.Background()
	for _, c := range []struct {
		db    *pool
		name  string
		query string
		want  string
	}{
		{s.w, "journal_mode", "PRAGMA journal_mode", "wal"},
		{s.w, "synchronous", "PRAGMA synchronous", "1"}, // NORMAL
		{s.w, "foreign_keys", "PRAGMA foreign_keys", "1"},
		{s.w, "busy_timeout", "PRAGMA busy_timeout", "5000"},
		{s.r, "reader journal_mode", "PRAGMA journal_mode", "wal"},
		{s.r, "reader query_only", "PRAGMA query_only", "1"},
		{s.r, "reader busy_timeout", "PRAGMA busy_timeout", "5000"},
	} {
		var got string
		if err := c.db.QueryRowContext(ctx, c.query).Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s = %q, want %q", c.name, got, c.want)
		}
	}
	if s.w.Stats().MaxOpenConnections != 1 {
		t.Errorf("writer pool allows %d connections, want 1", s.w.Stats().MaxOpenConnections)
	}
	if _, err := s.r.ExecContext(ctx, `DELETE FROM tasks`); err == nil {
		t.Error("the read pool accepted a write")
	}
}

// A write transaction must hold the write lock from BEGIN, before its first
// write: another connection that wants to write fails at once (busy timeout
// zero) instead of both reading and then dead-locking on the upgrade.
func TestWriteTransactionsBeginImmediate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	other, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(ctx, "BEGIN IMMEDIATE"); err == nil {
		other.ExecContext(ctx, "ROLLBACK")
		t.Fatal("a second writer got the lock while a store transaction was open")
	}
	tx.Rollback()
	if _, err := other.ExecContext(ctx, "BEGIN IMMEDIATE; ROLLBACK"); err != nil {
		t.Fatalf("lock not released: %v", err)
	}
}

func TestOpenPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "we?ird#dir%20")
	path := filepath.Join(dir, "h.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginSubmit(context.Background(), record.Intent{Operation: "text2video", Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the given path: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("expected only %s beside it, found %d entries", dir, len(entries))
	}
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.BeginSubmit(ctx, record.Intent{Operation: "text2video", Model: "svcq1", Body: []byte(`{"prompt":"a fox"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task, err := s.Task(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if task.Prompt != "a fox" || task.Model != "svcq1" {
		t.Errorf("after reopen: %+v", task)
	}
}

func TestCloseThenUse(t *testing.T) {
	s, _ := newStore(t)
	s.Close()
	if _, err := s.Tasks(context.Background(), record.Filter{}); err == nil {
		t.Error("query on a closed store succeeded")
	}
}

func TestErrorsWrap(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if _, err := s.Task(ctx, 42); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Task(42): %v, want ErrNotFound", err)
	}
	if _, err := s.TaskByID(ctx, "nope"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("TaskByID: %v, want ErrNotFound", err)
	}
}

func withBusyTimeout(d time.Duration) Option { return func(s *Store) { s.busy = d } }

// Another clapper holds the write lock past the busy timeout: the write
// waits (BEGIN IMMEDIATE is tried again) instead of failing, and is done
// once the lock is free.
func TestWriteWaitsOutABusyTimeout(t *testing.T) {
	sqliteOnly(t)
	path := filepath.Join(t.TempDir(), "h.db")
	s, err := Open(path, withBusyTimeout(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holder, err := rawDB(t, path).Begin() // IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond) // fifteen busy timeouts
		holder.Rollback()
		close(released)
	}()
	if _, err := s.BeginSubmit(context.Background(), record.Intent{Operation: "text2video", Body: []byte(`{"prompt":"x"}`)}); err != nil {
		t.Fatalf("the write gave up while another process held the lock: %v", err)
	}
	select {
	case <-released:
	default:
		t.Fatal("the write went through while the lock was held")
	}
}
