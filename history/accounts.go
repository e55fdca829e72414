package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"clapper/record"
)

// SaveAccountRead keeps the latest read of an account, replacing an older
// one (a read older than the one kept is dropped: two machines may answer
// out of order).
func (s *Store) SaveAccountRead(ctx context.Context, r record.AccountRead) error {
	return s.write(ctx, func(tx *dbTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO account_reads (account, remaining, running, queued,
				concurrency_limit, has_concurrency, read_at) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (account) DO UPDATE SET remaining = excluded.remaining, running = excluded.running,
				queued = excluded.queued, concurrency_limit = excluded.concurrency_limit,
				has_concurrency = excluded.has_concurrency, read_at = excluded.read_at
			WHERE account_reads.read_at <= excluded.read_at`,
			r.Account, r.Remaining, r.Running, r.Queued, r.Limit, r.HasConcurrency, ms(r.ReadAt))
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// AccountRead is the latest read of account; ok is false when none was kept.
func (s *Store) AccountRead(ctx context.Context, account string) (r record.AccountRead, ok bool, err error) {
	var at int64
	err = s.r.QueryRowContext(ctx, `SELECT account, remaining, running, queued, concurrency_limit, has_concurrency, read_at
		FROM account_reads WHERE account = ?`, account).Scan(&r.Account, &r.Remaining, &r.Running, &r.Queued, &r.Limit, &r.HasConcurrency, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return record.AccountRead{}, false, nil
	case err != nil:
		return record.AccountRead{}, false, fmt.Errorf("history: %w", err)
	}
	r.ReadAt = fromMS(at)
	return r, true, nil
}
