package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// writeLock is the key of the advisory lock every write transaction of a
// team's history takes ("clapper" + 1), apart from the migrations' lock.
const writeLock = migrationLock + 1

// IsTeamURL reports whether a history URL names a PostgreSQL database (a
// team's shared history) rather than a file.
func IsTeamURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

// dsnPassword is a password in PostgreSQL's keyword form, quoted or not.
var dsnPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)`)

// Redact is a history URL as it may be shown: without its password (and
// without the password parameter some URLs carry in their query).
func Redact(raw string) string {
	if !strings.Contains(raw, "://") {
		// Not a URL: maybe PostgreSQL's keyword form (host=h password=p),
		// which clapper refuses but must not echo.
		return strings.ToValidUTF8(dsnPassword.ReplaceAllString(raw, "${1}(hidden)"), "?")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that cannot be read)"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// named is a URL whose connections say which copy of clapper they are
// (pg_stat_activity's application_name), unless the URL names them itself:
// a server's keeper can tell the team's machines apart. The server keeps
// 63 bytes of it.
func named(rawURL, machine string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	q := u.Query()
	if q.Has("application_name") {
		return rawURL
	}
	q.Set("application_name", "clapper "+machine)
	// pgx reads a + as itself, not as a space (Encode writes a + of the
	// text as %2B).
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return u.String()
}

// poolIdle is how long a connection to a team's database may sit unused
// before it is closed: a copy left open and quiet gives its connections
// back to the server, whose max_connections the whole team shares, and a
// copy in use keeps them.
const poolIdle = 5 * time.Minute

// OpenPostgres opens a team's shared history at a postgres:// URL,
// migrating it to the schema this binary knows under the migrations' lock,
// with this machine's own rows in the history file at machineFile
// (machine.go), opened or made as Open does. Every failure names the URL without its password and says what went
// wrong in words: a bad URL, a server that cannot be reached, a refused
// password or role, a missing database, a schema of a newer clapper.
func OpenPostgres(ctx context.Context, rawURL, machineFile string, opts ...Option) (*Store, error) {
	where := Redact(rawURL)
	if _, err := pgconn.ParseConfig(rawURL); err != nil {
		return nil, fmt.Errorf("history %s: not a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE): %v", where, err)
	}
	s := &Store{now: time.Now, driver: "pgx", d: postgresDialect, where: where,
		url: rawURL, id: newStoreID(), link: record.Reach{Up: true}, idle: poolIdle}
	for _, o := range opts {
		o(s)
	}
	if s.machine == "" {
		s.machine, _ = os.Hostname()
	}
	if s.machine == "" {
		s.machine = "?"
	}
	s.url = named(rawURL, s.machine)
	open := func(max int) (*pool, error) {
		db, err := sql.Open(s.driver, s.url)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(max)
		db.SetMaxIdleConns(max)
		db.SetConnMaxIdleTime(s.idle)
		return &pool{DB: db, d: s.d}, nil
	}
	var err error
	if s.w, err = open(2); err != nil {
		return nil, s.explain(err)
	}
	if s.r, err = open(readers); err != nil {
		s.w.Close()
		return nil, s.explain(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := s.w.PingContext(pctx); err != nil {
		s.Close()
		return nil, s.explain(err)
	}
	// The timeout is the server's reachability, not the migration's: a step
	// may take half a minute at a million tasks (0025 indexes every task's
	// text anew), and another machine may be running it, which this one
	// waits for under the migrations' lock. The caller's context ends
	// either.
	if err := migrate(ctx, s.w, len(s.migrations())); err != nil {
		s.Close()
		return nil, s.explain(err)
	}
	var local []Option
	if s.clockGiven {
		local = append(local, WithClock(s.now))
	}
	if s.local, err = Open(machineFile, local...); err == nil {
		err = s.adoptOldRows(ctx)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("this machine's own part of history %s: %w", where, err)
	}
	return s, nil
}

// explain words an error of opening the team's history for a person.
func (s *Store) explain(err error) error {
	var tooNew *SchemaTooNewError
	if errors.As(err, &tooNew) {
		tooNew.Where = s.where
		return tooNew
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return fmt.Errorf("history %s: the server refused the user or password: %s", s.where, pe.Message)
		case "3D000":
			return fmt.Errorf("history %s: no such database on the server (create it first: createdb NAME): %s", s.where, pe.Message)
		case "42501":
			return fmt.Errorf("history %s: the user may not do this here (it needs to create tables in the database): %s", s.where, pe.Message)
		}
		return fmt.Errorf("history %s: %s (%s)", s.where, pe.Message, pe.Code)
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("history %s: cannot reach the server: %v", s.where, unwrapConnect(err))
	}
	return fmt.Errorf("history %s: %w", s.where, err)
}

// unwrapConnect is the innermost words of a connection failure (pgconn
// wraps them in the host and port, which the URL already names). A failure
// of several attempts (with TLS, then without; each address of a host)
// says each different reason once.
func unwrapConnect(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var reasons []string
		for _, e := range joined.Unwrap() {
			if r := unwrapConnect(e).Error(); !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
		}
		return errors.New(strings.Join(reasons, "; "))
	}
	if next := errors.Unwrap(err); next != nil {
		return unwrapConnect(next)
	}
	return err
}
