package history

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A read whose context is cancelled (a History search typed over) stops on
// the team's server at once (pgx sends a cancel request as it drops the
// connection), says it was cancelled, and the pool serves the next read:
// the server must not go on counting a million tasks for a screen that no
// longer wants them, beside the search that replaced it.
func TestTeamCancelledReadStopsOnTheServer(t *testing.T) {
	teamOnly(t)
	s, _ := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// Longer than any wait below: only a cancel on the server ends it.
		rows, err := s.r.QueryContext(ctx, `SELECT pg_sleep(60)`)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		done <- err
	}()
	running := func() int {
		t.Helper()
		var n int
		if err := s.w.QueryRowContext(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND state = 'active' AND query = 'SELECT pg_sleep(60)'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal(what)
			}
		}
	}
	waitFor("the read never started on the server", func() bool { return running() == 1 })
	cancel()
	// The context's error, not the server's words ("canceling statement
	// due to user request"): a screen drops the answer of a read it
	// cancelled, and shows any other error.
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled read returned %v", err)
	}
	waitFor("the server went on with the cancelled read", func() bool { return running() == 0 })
	var one int
	if err := s.r.QueryRowContext(context.Background(), `SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("the next read: %d, %v", one, err)
	}
}
