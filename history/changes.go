package history

import (
	"context"
	"fmt"
	"time"
)

// WatchChanges calls changed whenever a commit reached the database since
// the last look, from this process or any other (a `clapper create` in
// another terminal), checking every interval until ctx ends. It asks
// SQLite's data_version on one pinned connection, which costs a few
// microseconds and reads no table, so an idle history costs nothing.
func (s *Store) WatchChanges(ctx context.Context, every time.Duration, changed func()) error {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer conn.Close()
	version := func() (int64, error) {
		var v int64
		err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v)
		return v, err
	}
	last, err := version()
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		v, err := version()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			continue // a busy moment; the next tick looks again
		}
		if v != last {
			last = v
			changed()
		}
	}
}
