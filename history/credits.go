package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// AddCredits adds credits to a task's charge: what a multi-scene job costs
// is known to clapper, not told by the service (studio.recordJobCredits).
func (s *Store) AddCredits(ctx context.Context, localID, credits int64) error {
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET credits = credits + ?, updated_at = ? WHERE id = ?`,
			credits, ms(now), localID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: task #%d", record.ErrNotFound, localID)
		}
		return nil
	})
}

// ChargeVersion adds what a scene edit costs to its job's task and keeps
// the charge on the version (subJobID, recorded by AddVersion): should the
// version fail, the next read of the job gives it back (refundFailed).
func (s *Store) ChargeVersion(ctx context.Context, localID int64, subJobID string, credits int64) error {
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sub_jobs SET credits = credits + ? WHERE id = ?`, credits, subJobID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: version %s", record.ErrNotFound, subJobID)
		}
		res, err = tx.ExecContext(ctx, `UPDATE tasks SET credits = credits + ?, updated_at = ? WHERE id = ?`,
			credits, ms(now), localID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: task #%d", record.ErrNotFound, localID)
		}
		return nil
	})
}

// refundFailed gives a failed version's charge back to its job's task,
// once: the charge is cleared as it is given back.
func refundFailed(ctx context.Context, tx *dbTx, jobID, subJobID string, now time.Time) error {
	var credits int64
	err := tx.QueryRowContext(ctx, `SELECT credits FROM sub_jobs WHERE id = ?`, subJobID).Scan(&credits)
	if err != nil || credits == 0 {
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET credits = max(credits - ?, 0), updated_at = ? WHERE task_id = ?`,
		credits, ms(now), jobID); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE sub_jobs SET credits = 0 WHERE id = ?`, subJobID)
	return err
}
