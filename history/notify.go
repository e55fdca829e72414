package history

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"clapper/record"

	"github.com/jackc/pgx/v5"
)

// A team's database tells every process of a change as it commits: the
// triggers of migrations/postgres/0021 notify changesChannel with the
// writing store's id (set for each write transaction), and ReleasePoller
// notifies pollerChannel with the account. A notification is only a
// wake-up: the listener re-reads from its own cursor (the watcher's change
// sequence, the screens' queries), so a notification lost while the
// connection was down costs nothing once it is back, and a duplicate
// costs one read.
const (
	changesChannel = "clapper_changes"
	pollerChannel  = "clapper_poller"
)

// newStoreID names a store in its own notifications, so it can leave out
// the changes it made itself (they reach its screens as events).
func newStoreID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// listen holds one connection that LISTENs on both channels. After every
// connect it reports a change first (catching up on what was missed while
// it was down), then each notification of another store; while it cannot
// connect the link is down and it tries again, backing off to 5 s.
func (s *Store) listen(ctx context.Context, w record.ChangeWatch) error {
	changed := func() {
		if w.Changed != nil {
			w.Changed()
		}
	}
	wait := 250 * time.Millisecond
	for {
		err := s.listenOnce(ctx, w, changed)
		if ctx.Err() != nil {
			return nil
		}
		if s.setLink(false, err) {
			changed() // the header says the history is out of reach
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

func (s *Store) listenOnce(ctx context.Context, w record.ChangeWatch, changed func()) error {
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	conn, err := pgx.Connect(cctx, s.url)
	cancel()
	if err != nil {
		return s.explain(err)
	}
	defer conn.Close(context.Background())
	for _, ch := range []string{changesChannel, pollerChannel} {
		if _, err := conn.Exec(ctx, "LISTEN "+ch); err != nil {
			return s.explain(err)
		}
	}
	s.setLink(true, nil)
	changed() // catch up from the cursors before trusting a notification
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return s.explain(err)
		}
		switch {
		case n.Channel == pollerChannel && n.Payload == s.account:
			if w.PollerFreed != nil {
				w.PollerFreed()
			}
		case n.Channel == changesChannel && n.Payload != s.id:
			changed()
		}
	}
}

// setLink records the connection's state and reports whether it changed.
func (s *Store) setLink(up bool, err error) bool {
	s.linkMu.Lock()
	defer s.linkMu.Unlock()
	was := s.link
	if up {
		s.link = record.Reach{Up: true}
	} else if s.link.Up || s.link.Since.IsZero() {
		s.link = record.Reach{Since: s.now()}
	}
	if err != nil && !up {
		s.link.Err = err.Error()
	}
	return was.Up != s.link.Up
}

// Reach is how the history is reached now.
func (s *Store) Reach() record.Reach {
	if !s.d.postgres {
		return record.Reach{Up: true}
	}
	s.linkMu.Lock()
	defer s.linkMu.Unlock()
	return s.link
}
