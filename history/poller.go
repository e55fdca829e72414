package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ClaimPoller makes owner the one poller of this history until now+lease
// and returns the poller after the claim: owner when nobody held it, its
// lease lapsed, gone says its holder is dead, or owner held it already (a
// renewal); else the live holder.
func (s *Store) ClaimPoller(ctx context.Context, owner string, now time.Time, lease time.Duration, gone func(holder string) bool) (holder string, err error) {
	err = s.write(ctx, func(tx *dbTx) error {
		var until int64
		err := tx.QueryRowContext(ctx, `SELECT owner, lease_until FROM poller WHERE id = 1`).Scan(&holder, &until)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("history: %w", err)
		}
		if err == nil && holder != owner && until > ms(now) && (gone == nil || !gone(holder)) {
			return nil
		}
		holder = owner
		if _, err := tx.ExecContext(ctx, `INSERT INTO poller (id, owner, lease_until) VALUES (1, ?, ?)
			ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until`,
			owner, ms(now.Add(lease))); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
	return holder, err
}

// ReleasePoller gives up owner's lease, so the next claim need not wait
// for it to lapse.
func (s *Store) ReleasePoller(ctx context.Context, owner string) error {
	return s.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM poller WHERE owner = ?`, owner); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}
