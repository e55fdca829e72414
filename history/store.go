package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // the "sqlite" driver, and its *Error for BUSY
	sqlite3 "modernc.org/sqlite/lib"
)

// busyTimeout is how long a statement waits for another process (a second
// clapper, a sqlite3 shell) holding the write lock before failing.
const busyTimeout = 5 * time.Second

// readers is the size of the read pool. Reads never block the writer in WAL
// mode; a few connections let the UI's list and detail queries overlap.
const readers = 4

// Store is the history database. It is safe for concurrent use.
type Store struct {
	// w has exactly one connection, so writes from this process queue in Go
	// instead of meeting SQLITE_BUSY, and every write transaction begins
	// IMMEDIATE (it takes the lock up front, never upgrades mid-way).
	w *pool
	// r is query_only, so a read path can never write by mistake.
	r      *pool
	now    func() time.Time
	driver string
	// d is the SQL of the database behind the store: SQLite's for a
	// history file, PostgreSQL's for a team's shared history.
	d *dialect
	// where names the database for messages: the file's path, or the
	// URL with its password left out.
	where string
	// machine names this machine in a team's database (who saved a
	// result, which copy a connection is); a history file is one
	// machine's: "".
	machine string
	// local is a team's store's machine file: the rows that are this
	// machine's own (machine.go). A history file holds its own: nil.
	local *Store
	// account is the account this store's tasks are sent on (a profile
	// name or a hash of the key, never the key); sentBy who sends them
	// (user@machine). Both are recorded with every task.
	account, sentBy string
	// clockGiven: now is a clock the caller gave (WithClock), which leases
	// keep to as well.
	clockGiven bool
	// busy is a history file's busy timeout (busyTimeout; a test shortens
	// it); idle how long a team database's pooled connection may sit
	// unused (poolIdle; a test shortens it).
	busy, idle time.Duration

	// A team's database: its URL (kept for the listening connection), the
	// store's id in its change notifications, and the link's state.
	url    string
	id     string
	linkMu sync.Mutex
	link   record.Reach
}

// Option configures Open.
type Option func(*Store)

// WithClock replaces time.Now for every time the store stamps itself
// (created_at, updated_at, observed-at defaults, job fetch times).
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now, s.clockGiven = now, true }
}

// WithSender names the account tasks are sent on and who sends them
// (user@machine): recorded with every task, and the account scopes the
// poller's lease and the tasks it follows.
func WithSender(account, sentBy string) Option {
	return func(s *Store) { s.account, s.sentBy = account, sentBy }
}

// WithMachine names this machine in a team's database (the host name when
// not given); a history file ignores it.
func WithMachine(name string) Option {
	return func(s *Store) { s.machine = name }
}

// WithDriver opens the database through the database/sql driver registered
// under name instead of modernc's "sqlite": a benchmark wraps that driver to
// count the statements a screen asks for.
func WithDriver(name string) Option {
	return func(s *Store) { s.driver = name }
}

// Open opens the history at path, creating its directory (0700) and the file
// (0600) when missing, and migrates it to the schema this binary knows. A
// database written by a newer clapper is refused with a *SchemaTooNewError.
func Open(path string, opts ...Option) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	s := &Store{now: time.Now, driver: "sqlite", d: sqliteDialect, where: abs, busy: busyTimeout}
	for _, o := range opts {
		o(s)
	}
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		if err := seedNew(abs, s.driver); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	// Create the file ourselves: SQLite would create it with the umask's
	// 0644, and the history holds prompts and signed URLs. SQLite gives the
	// -wal and -shm files the mode of the database file.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}

	s.machine, s.local = "", nil // a history file is one machine's
	w, err := sql.Open(s.driver, dsn(abs, true, s.busy))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	s.w = &pool{DB: w, d: s.d}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxIdleTime(0)
	s.w.SetConnMaxLifetime(0)

	// The version is read on the read pool: when the schema is current (on
	// every start but the first of a new clapper) the writer's connection
	// opens with the first write, not before the first screen; a connection
	// reads the whole schema as it opens, milliseconds at this size.
	if err := s.openReaders(abs); err != nil {
		s.w.Close()
		return nil, err
	}
	v, err := s.d.schemaVersion(context.Background(), s.r)
	if err == nil && v == len(s.migrations()) {
		return s, nil
	}
	s.r.Close()
	if err := retryBusy(func() error { return migrate(context.Background(), s.w, len(s.migrations())) }); err != nil {
		s.w.Close()
		return nil, err
	}
	// The read pool opens again after migrating so that its connections
	// see the WAL mode and the schema the writer just set up.
	if err := s.openReaders(abs); err != nil {
		s.w.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) openReaders(abs string) error {
	r, err := sql.Open(s.driver, dsn(abs, false, s.busy))
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s.r = &pool{DB: r, d: s.d}
	return nil
}

// Close closes both connection pools, and a team's store its machine file.
func (s *Store) Close() error {
	err := errors.Join(s.r.Close(), s.w.Close())
	if s.local != nil {
		err = errors.Join(err, s.local.Close())
	}
	return err
}

// retryBusy retries fn while it fails with SQLITE_BUSY, up to busyTimeout.
// The busy timeout covers waiting for locks, but not the case of two
// connections switching a new file to WAL at once: SQLite answers one of them
// BUSY at once rather than let both wait on each other. That happens when
// two clappers start on a new history together; migrate is safe to repeat.
func retryBusy(fn func() error) error {
	deadline := time.Now().Add(busyTimeout)
	for {
		err := fn()
		var e *sqlite.Error
		if err == nil || !errors.As(err, &e) || e.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dsn builds a file: URI so that any character of the path (?, #, %) is
// escaped rather than taken for the start of the query.
func dsn(abs string, write bool, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	if write {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("_txlock", "immediate")
	} else {
		// Reads take no lock beyond their snapshot; BEGIN IMMEDIATE here
		// would make every read transaction wait for the writer.
		q.Add("_pragma", "query_only(1)")
		// The file is read, not memory-mapped: every mapped page a search
		// touches stays in the process's resident size, 260 MB after one
		// broad search at a million tasks, and the benchmarks run as fast
		// with the pages read from the system's cache.
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows volume: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// write runs fn in one IMMEDIATE transaction on the single writer. On
// PostgreSQL the transaction first takes the store's write lock, held to its
// end: writers of every machine take turns as a history file's do, so the
// rules that read before they write (created_at never going back, a state
// never moving backwards, a cap checked before a send) hold across them.
func (s *Store) write(ctx context.Context, fn func(tx *dbTx) error) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if s.d.postgres {
		// The writer's id goes with the transaction: the change triggers
		// put it in their notifications (notify.go).
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?), set_config('clapper.writer', ?, true)`,
			int64(writeLock), s.id); err != nil {
			tx.Rollback()
			return fmt.Errorf("history: %w", err)
		}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// writeWait bounds how long a write waits for another process's writes on
// a history file: past the busy timeout of one attempt, BEGIN IMMEDIATE is
// tried again, since a write that fails because another clapper was
// writing a while is lost work, and a long wait is not.
const writeWait = time.Minute

// begin starts a write transaction. On a history file, BEGIN IMMEDIATE
// takes the write lock (nothing has run yet when it is busy), so it is
// tried again until writeWait rather than fail on a machine whose other
// clapper holds the lock past the busy timeout.
func (s *Store) begin(ctx context.Context) (*dbTx, error) {
	deadline := time.Now().Add(writeWait)
	for {
		tx, err := s.w.BeginTx(ctx, nil)
		var e *sqlite.Error
		if err == nil || s.d.postgres || !errors.As(err, &e) || e.Code()&0xff != sqlite3.SQLITE_BUSY ||
			time.Now().After(deadline) || ctx.Err() != nil {
			return tx, err
		}
	}
}

// read runs fn in one read transaction, so that a task and its children come
// from the same snapshot.
func (s *Store) read(ctx context.Context, fn func(tx *dbTx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.d.postgres {
		opts.Isolation = sql.LevelRepeatableRead // one snapshot, as SQLite's read transaction is
	}
	tx, err := s.r.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// Times are stored as INTEGER unix milliseconds UTC; NULL is the zero time.

func ms(t time.Time) int64 { return t.UnixMilli() }

func nullMS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func fromNullMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMS(v.Int64)
}

// nullText stores an empty raw body as NULL rather than as an empty string
// that would read back as invalid JSON.
func nullText(b []byte) sql.NullString {
	if len(b) == 0 {
		return sql.NullString{}
	}
	return sql.NullString{String: string(b), Valid: true}
}

func bytesOf(v sql.NullString) []byte {
	if !v.Valid {
		return nil
	}
	return []byte(v.String)
}

// parseServiceTime reads the service's ISO 8601 timestamps, which may lack a
// zone (they are documented as UTC); the zero time when absent or unreadable.
func parseServiceTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// The SQLite history is a whole record.
var _ record.Store = (*Store)(nil)
