package history

import (
	"context"
	"database/sql"
	"fmt"
)

// AddCredits adds credits to a task's charge: what a multi-scene job costs
// is known to clapper, not told by the service (studio.recordJobCredits).
func (s *Store) AddCredits(ctx context.Context, localID, credits int64) error {
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET credits = credits + ?, updated_at = ? WHERE id = ?`,
			credits, ms(now), localID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: task #%d", ErrNotFound, localID)
		}
		return nil
	})
}
