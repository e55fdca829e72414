package history

import (
	"clapper/record"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ChangeProbe tells whether another process committed to the history since
// its last look.
//
// It asks SQLite's data_version on the store's one writer connection: the
// number moves only for commits of other connections, and every write of
// this process goes through that connection, so the process's own writes
// (the watcher recording a state, a submit) are never reported back to it:
// they reach the screens as the events that made them. The question costs a
// few microseconds and reads no table. Should the writer connection ever be
// replaced (after an I/O error), the first look after reports one change.
type ChangeProbe struct {
	s    *Store
	last int64
}

// NewChangeProbe starts looking from now.
func (s *Store) NewChangeProbe(ctx context.Context) (*ChangeProbe, error) {
	p := &ChangeProbe{s: s}
	v, err := p.version(ctx)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	p.last = v
	return p, nil
}

func (p *ChangeProbe) version(ctx context.Context) (int64, error) {
	var v int64
	err := p.s.w.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v)
	return v, err
}

// Changed reports whether another process committed since the last look.
func (p *ChangeProbe) Changed(ctx context.Context) (bool, error) {
	v, err := p.version(ctx)
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	changed := v != p.last
	p.last = v
	return changed, nil
}

// WatchChanges calls w.Changed whenever another process (a `clapper
// create` in another terminal, another machine on a team's database)
// committed to the history since the last look, and w.PollerFreed when the
// account's poller gave up its lease, until ctx ends. A history file is
// looked at every interval (see ChangeProbe; its poller's release is seen
// by the next claim); a team's database notifies at once (notify.go), and
// its store's machine file, where another process of this machine saves
// results, is looked at every interval too. w.Changed is never called
// twice at once.
func (s *Store) WatchChanges(ctx context.Context, every time.Duration, w record.ChangeWatch) error {
	if s.local != nil {
		if changed := w.Changed; changed != nil {
			var one sync.Mutex
			w.Changed = func() {
				one.Lock()
				defer one.Unlock()
				changed()
			}
		}
		done := make(chan error, 1)
		go func() { done <- s.local.WatchChanges(ctx, every, record.ChangeWatch{Changed: w.Changed}) }()
		return errors.Join(s.listen(ctx, w), <-done)
	}
	probe, err := s.NewChangeProbe(ctx)
	if err != nil {
		return err
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		moved, err := probe.Changed(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			continue // a busy moment; the next tick looks again
		}
		if moved && w.Changed != nil {
			w.Changed()
		}
	}
}
