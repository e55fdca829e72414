package history

import (
	"clapper/record"
	"context"
	"fmt"
	"time"
)

// CreditsSince sums the credits of the tasks of one origin ("" for every
// origin) created at or after from that the service accepted (the day's
// agent spending, the month's spending, for the caps): rejected and unsent
// requests cost nothing.
func (s *Store) CreditsSince(ctx context.Context, origin record.Origin, from time.Time) (int64, error) {
	var n int64
	err := s.r.QueryRowContext(ctx, `SELECT coalesce(sum(credits), 0) FROM tasks
		WHERE (? = '' OR origin = ?) AND created_at >= ? AND task_id IS NOT NULL`, string(origin), string(origin), ms(from)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return n, nil
}
