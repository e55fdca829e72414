package history

import (
	"context"
	"database/sql"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// dialect is the SQL the store's statements are written in (SQLite's) made
// fit for the database behind it. The statements are written once, with ?
// for a parameter; PostgreSQL gets them rewritten on first use and cached:
// numbered parameters, no SQLite index hints, case-blind LIKE (SQLite's
// LIKE ignores ASCII case), string_agg for group_concat. Booleans are sent
// as 0 and 1, as SQLite stores them, since both schemas keep flags in
// integer columns.
type dialect struct {
	postgres  bool
	rewritten sync.Map // statement → its PostgreSQL form
}

var (
	sqliteDialect   = &dialect{}
	postgresDialect = &dialect{postgres: true}
)

// Name is the dialect's name as the user knows it.
func (d *dialect) Name() string {
	if d.postgres {
		return "postgres"
	}
	return "sqlite"
}

var (
	indexHint = regexp.MustCompile(`\s+(?:INDEXED BY \w+|NOT INDEXED)`)
	likeWord  = regexp.MustCompile(`\bLIKE\b`)
)

// sql is statement q as this database takes it.
func (d *dialect) sql(q string) string {
	if !d.postgres {
		return q
	}
	if r, ok := d.rewritten.Load(q); ok {
		return r.(string)
	}
	r := rebind(q)
	r = indexHint.ReplaceAllString(r, "")
	r = likeWord.ReplaceAllString(r, "ILIKE")
	r = strings.ReplaceAll(r, "group_concat(", "string_agg(")
	// SQLite's CROSS JOIN only fixes the join order; PostgreSQL's takes no ON.
	r = strings.ReplaceAll(r, "CROSS JOIN", "JOIN")
	d.rewritten.Store(q, r)
	return r
}

// rebind numbers the parameters as PostgreSQL writes them: ? becomes $1,
// $2... in order, ?N becomes $N; text in single quotes is left alone.
func rebind(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted
			b.WriteByte(c)
		case c == '?' && !quoted:
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j > i+1 {
				b.WriteString("$" + q[i+1:j])
				i = j - 1
				continue
			}
			n++
			b.WriteString("$" + strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// args are the parameters as this database takes them.
func (d *dialect) args(args []any) []any {
	if !d.postgres {
		return args
	}
	copied := false
	for i, a := range args {
		switch a.(type) {
		case bool, sql.NullBool:
			if !copied { // the caller's slice stays as it was
				args, copied = slices.Clone(args), true
			}
		}
		switch v := a.(type) {
		case bool:
			args[i] = oneOrZero(v)
		case sql.NullBool:
			if v.Valid {
				args[i] = oneOrZero(v.Bool)
			} else {
				args[i] = nil
			}
		}
	}
	return args
}

// pool is a connection pool whose statements are written in the store's
// SQL and sent in its database's.
type pool struct {
	*sql.DB
	d *dialect
}

func (p *pool) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return p.DB.ExecContext(ctx, p.d.sql(q), p.d.args(args)...)
}

func (p *pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return p.DB.QueryContext(ctx, p.d.sql(q), p.d.args(args)...)
}

func (p *pool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return p.DB.QueryRowContext(ctx, p.d.sql(q), p.d.args(args)...)
}

func (p *pool) BeginTx(ctx context.Context, opts *sql.TxOptions) (*dbTx, error) {
	tx, err := p.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &dbTx{Tx: tx, d: p.d}, nil
}

// dbTx is a transaction of a pool.
type dbTx struct {
	*sql.Tx
	d *dialect
}

func (t *dbTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, t.d.sql(q), t.d.args(args)...)
}

func (t *dbTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.Tx.QueryContext(ctx, t.d.sql(q), t.d.args(args)...)
}

func (t *dbTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return t.Tx.QueryRowContext(ctx, t.d.sql(q), t.d.args(args)...)
}

func (t *dbTx) PrepareContext(ctx context.Context, q string) (*dbStmt, error) {
	st, err := t.Tx.PrepareContext(ctx, t.d.sql(q))
	if err != nil {
		return nil, err
	}
	return &dbStmt{Stmt: st, d: t.d}, nil
}

// dbStmt is a prepared statement of a transaction.
type dbStmt struct {
	*sql.Stmt
	d *dialect
}

func (s *dbStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return s.Stmt.ExecContext(ctx, s.d.args(args)...)
}

func oneOrZero(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
