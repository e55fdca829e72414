package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ClaimPoller makes owner the one poller of this store's account until
// now+lease and returns the poller after the claim: owner when nobody held
// it, its lease lapsed, gone says its holder is dead, or owner held it
// already (a renewal); else the live holder. On a team's database the lease
// is timed by the database's clock, not now: machines whose clocks
// disagree still agree on when a lease ends (a store given its own clock,
// as in tests, keeps to it).
func (s *Store) ClaimPoller(ctx context.Context, owner string, now time.Time, lease time.Duration, gone func(holder string) bool) (holder string, err error) {
	err = s.write(ctx, func(tx *dbTx) error {
		at, err := s.leaseClock(ctx, tx, now)
		if err != nil {
			return err
		}
		var until int64
		err = tx.QueryRowContext(ctx, `SELECT owner, lease_until FROM poller WHERE account = ?`, s.account).Scan(&holder, &until)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("history: %w", err)
		}
		if err == nil && holder != owner && until > at && (gone == nil || !gone(holder)) {
			return nil
		}
		holder = owner
		if _, err := tx.ExecContext(ctx, `INSERT INTO poller (account, owner, lease_until) VALUES (?, ?, ?)
			ON CONFLICT (account) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until`,
			s.account, owner, at+lease.Milliseconds()); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
	return holder, err
}

// leaseClock is the time a lease is measured from, in milliseconds: the
// database's clock on PostgreSQL, unless the store was given a clock.
func (s *Store) leaseClock(ctx context.Context, tx *dbTx, now time.Time) (int64, error) {
	if !s.d.postgres || s.clockGiven {
		return ms(now), nil
	}
	var at int64
	if err := tx.QueryRowContext(ctx, `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint`).Scan(&at); err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return at, nil
}

// ReleasePoller gives up owner's lease, so the next claim need not wait
// for it to lapse; on a team's database the others hear of it at once
// (the poller channel) and one of them takes over.
func (s *Store) ReleasePoller(ctx context.Context, owner string) error {
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM poller WHERE account = ? AND owner = ?`, s.account, owner)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 && s.d.postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_notify(?, ?)`, pollerChannel, s.account); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		return nil
	})
}
