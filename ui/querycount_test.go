package ui

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // the driver countingDriver wraps
)

// statements counts every SQL statement the history runs through the
// "sqlite-counting" driver: a benchmark's figure of what a screen asks.
var statements atomic.Int64

var registerCounting sync.Once

// queryGate, when set, sees each query before the driver runs it, with the
// query's context: a test holds a kind of statement there (the History
// page's counts) and sees whether its context is cancelled. An error it
// returns is the query's.
var queryGate atomic.Pointer[func(ctx context.Context, query string) error]

// countingDriverName registers, once, a driver that forwards to modernc's
// "sqlite" and counts each statement executed or queried.
func countingDriverName() string {
	registerCounting.Do(func() {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			panic(err)
		}
		sql.Register("sqlite-counting", countingDriver{db.Driver()})
		db.Close()
	})
	return "sqlite-counting"
}

type countingDriver struct{ driver.Driver }

func (d countingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	return countingConn{c}, nil
}

// countingConn forwards what modernc's connection offers; the interfaces
// it does not forward make database/sql fall back to ones it does.
type countingConn struct{ driver.Conn }

func (c countingConn) Prepare(query string) (driver.Stmt, error) {
	s, err := c.Conn.Prepare(query)
	if err != nil {
		return nil, err
	}
	return countingStmt{s}, nil
}

func (c countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return countingStmt{s}, nil
}

func (c countingConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, o)
}

func (c countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	statements.Add(1)
	if gate := queryGate.Load(); gate != nil {
		if err := (*gate)(ctx, q); err != nil {
			return nil, err
		}
	}
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	statements.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

type countingStmt struct{ driver.Stmt }

func (s countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	statements.Add(1)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	statements.Add(1)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}
