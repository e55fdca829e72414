package history

import (
	"clapper/record"
	"context"
	"fmt"
	"time"
)

// CreditsSince sums what the tasks of one origin ("" for every origin)
// created at or after from cost (the day's agent spending, the month's
// spending, for the caps): what the service charged each task it accepted,
// and what each request still being sent, or of unknown outcome, reserved
// (the service may have billed it). Refused and unsent requests cost
// nothing.
func (s *Store) CreditsSince(ctx context.Context, origin record.Origin, from time.Time) (int64, error) {
	return creditsSince(ctx, s.r, origin, from)
}

// spentQuery is CreditsSince's statement: a request still submitting
// counts its reservation.
const spentQuery = `SELECT coalesce(sum(CASE WHEN task_id IS NOT NULL THEN credits
		WHEN state = '` + record.StateSubmitting + `' THEN reserved ELSE 0 END), 0) FROM tasks
	WHERE (? = '' OR origin = ?) AND created_at >= ?`

func creditsSince(ctx context.Context, q queryer, origin record.Origin, from time.Time) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, spentQuery, string(origin), string(origin), ms(from)).Scan(&n); err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return n, nil
}

// checkCaps refuses, inside the write transaction that is about to record a
// request reserving reserve, one that would take spending past a cap.
// Writes take turns (one writer on a file, the write lock on PostgreSQL),
// so no other request can be recorded between this check and the insert:
// parallel senders, in any process or on any machine, cannot overspend.
func checkCaps(ctx context.Context, tx *dbTx, reserve int64, caps []record.Cap) error {
	for _, c := range caps {
		if c.Limit <= 0 {
			continue
		}
		spent, err := creditsSince(ctx, tx, c.Origin, c.Since)
		if err != nil {
			return err
		}
		if spent >= c.Limit || (c.Known && spent+reserve > c.Limit) {
			return &record.CapExceeded{Cap: c, Spent: spent}
		}
	}
	return nil
}
