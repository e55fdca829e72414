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
// nothing. All spending ("") also counts what running sets reserved for
// their unsent lines.
func (s *Store) CreditsSince(ctx context.Context, origin record.Origin, from time.Time) (int64, error) {
	return s.creditsSince(ctx, s.r, origin, from, 0)
}

// setHold is how long a set's reservation holds after its run last said
// it still runs (ReserveSet): a run that died holds nothing after it.
const setHold = time.Minute

// creditsSince is CreditsSince leaving out one set's own reservation (0:
// none), for a line of that set being checked against the caps. It counts
// this store's account (and tasks recorded before accounts were): a cap
// is on what an account spends, and a team's history may hold another
// account's tasks, or a colleague's simulated ones.
func (s *Store) creditsSince(ctx context.Context, q queryer, origin record.Origin, from time.Time, exceptSet int64) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT coalesce(sum(CASE WHEN task_id IS NOT NULL THEN credits
			WHEN state = ? THEN reserved ELSE 0 END), 0)
		+ CASE WHEN ? = '' THEN (SELECT coalesce(sum(reserved), 0) FROM task_sets
			WHERE reserved > 0 AND reserved_beat >= ? AND id != ?) ELSE 0 END
		FROM tasks WHERE (? = '' OR origin = ?) AND (? = '' OR account IN (?, '')) AND created_at >= ?`,
		record.StateSubmitting, string(origin), ms(s.now().Add(-setHold)), exceptSet,
		string(origin), string(origin), s.account, s.account, ms(from)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return n, nil
}

// checkCaps refuses, inside the write transaction that is about to record a
// request reserving reserve, one that would take spending past a cap.
// Writes take turns (one writer on a file, the write lock on PostgreSQL),
// so no other request can be recorded between this check and the insert:
// parallel senders, in any process or on any machine, cannot overspend.
func (s *Store) checkCaps(ctx context.Context, tx *dbTx, reserve int64, caps []record.Cap, exceptSet int64) error {
	for _, c := range caps {
		if c.Limit <= 0 {
			continue
		}
		spent, err := s.creditsSince(ctx, tx, c.Origin, c.Since, exceptSet)
		if err != nil {
			return err
		}
		if spent >= c.Limit || (c.Known && spent+reserve > c.Limit) {
			return &record.CapExceeded{Cap: c, Spent: spent}
		}
	}
	return nil
}

// ReserveSet sets what set setID holds for its unsent lines, after holding
// credits (0: its run ended, nothing held) to the caps, leaving out what
// the set held before, in one write transaction: a refusal is a
// *record.CapExceeded, and nothing changes. A run calls it again with what
// is left, no caps, to say it still runs (the hold lapses setHold after).
func (s *Store) ReserveSet(ctx context.Context, setID, credits int64, caps []record.Cap) error {
	return s.write(ctx, func(tx *dbTx) error {
		if credits > 0 {
			if err := s.checkCaps(ctx, tx, credits, caps, setID); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE task_sets SET reserved = ?, reserved_beat = ? WHERE id = ?`,
			credits, ms(s.now()), setID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: set %d", record.ErrNotFound, setID)
		}
		return nil
	})
}
