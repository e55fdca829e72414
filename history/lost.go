package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// RecordNotFound counts one more answer that the service does not know a
// task. When the run holds at least limit answers and has lasted at least
// window (from its first answer, over any number of runs), the task is lost:
// InFlight leaves it out from then on, in this process and every later one,
// so no run retries it forever. The task keeps its state. A task id history
// does not hold is ErrNotFound.
func (s *Store) RecordNotFound(ctx context.Context, taskID string, at time.Time, reason string, limit int, window time.Duration) (record.NotFound, error) {
	var n record.NotFound
	err := s.write(ctx, func(tx *dbTx) error {
		err := tx.QueryRowContext(ctx, `SELECT id FROM tasks WHERE task_id = ?`, taskID).Scan(&n.LocalID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: task %q", record.ErrNotFound, taskID)
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO not_found (task, count, first_at, last_at, reason)
			VALUES (?, 1, ?, ?, ?)
			ON CONFLICT (task) DO UPDATE SET count = not_found.count + 1, last_at = excluded.last_at, reason = excluded.reason`,
			n.LocalID, ms(at), ms(at), reason); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE not_found SET lost_at = ?
			WHERE task = ? AND lost_at IS NULL AND count >= ? AND last_at - first_at >= ?`,
			ms(at), n.LocalID, limit, window.Milliseconds()); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		n, err = scanNotFound(tx.QueryRowContext(ctx, notFoundQuery+` WHERE n.task = ?`, n.LocalID))
		return err
	})
	return n, err
}

// ClearNotFound ends a task's run of 404 answers: the service answered for
// it, or the user asks to follow it again (a lost task is then in flight
// once more). Unknown ids and tasks without a run are left alone.
func (s *Store) ClearNotFound(ctx context.Context, taskID string) error {
	return s.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM not_found
			WHERE task = (SELECT id FROM tasks WHERE task_id = ?)`, taskID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// Refollow ends a task's run of answers that the service does not know it
// and reports whether the run had made the task lost: the user asks to
// follow it again, and a read showed the service knows it. InFlight then
// lists the task again. A task id history does not hold is ErrNotFound.
func (s *Store) Refollow(ctx context.Context, taskID string) (wasLost bool, err error) {
	err = s.write(ctx, func(tx *dbTx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM tasks WHERE task_id = ?`, taskID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: task %q", record.ErrNotFound, taskID)
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		var lost sql.NullInt64
		err = tx.QueryRowContext(ctx, `DELETE FROM not_found WHERE task = ? RETURNING lost_at`, id).Scan(&lost)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("history: %w", err)
		}
		wasLost = lost.Valid
		return nil
	})
	return wasLost, err
}

// LostTask reports whether a task is lost (RecordNotFound).
func (s *Store) LostTask(ctx context.Context, taskID string) (bool, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM not_found n JOIN tasks t ON t.id = n.task
		WHERE t.task_id = ? AND n.lost_at IS NOT NULL`, taskID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	return n > 0, nil
}

// LostTasks are the tasks no longer followed because the service kept
// answering that it does not know them, most recently lost first.
func (s *Store) LostTasks(ctx context.Context) ([]record.NotFound, error) {
	rows, err := s.r.QueryContext(ctx, notFoundQuery+` WHERE n.lost_at IS NOT NULL ORDER BY n.lost_at DESC, n.task DESC`)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.NotFound
	for rows.Next() {
		n, err := scanNotFound(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

const notFoundQuery = `SELECT n.task, t.task_id, t.operation, t.state, n.count, n.first_at, n.last_at, n.reason, n.lost_at
	FROM not_found n JOIN tasks t ON t.id = n.task`

func scanNotFound(sc scanner) (record.NotFound, error) {
	var (
		n           record.NotFound
		first, last int64
		lost        sql.NullInt64
		taskID      sql.NullString
	)
	if err := sc.Scan(&n.LocalID, &taskID, &n.Operation, &n.State, &n.Count, &first, &last, &n.Reason, &lost); err != nil {
		return record.NotFound{}, fmt.Errorf("history: %w", err)
	}
	n.TaskID, n.FirstAt, n.LastAt, n.LostAt = taskID.String, fromMS(first), fromMS(last), fromNullMS(lost)
	return n, nil
}
