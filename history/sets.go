package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"clapper/api"
	"clapper/record"
)

// OpenSet returns the set of this kind with this key, creating it with
// members when there is none (a key "" always creates one). created tells
// which; members' LocalIDs are ignored when creating.
func (s *Store) OpenSet(ctx context.Context, kind record.SetKind, key, name string, members []record.SetMember) (id int64, created bool, err error) {
	err = s.write(ctx, func(tx *dbTx) error {
		if key != "" {
			err := tx.QueryRowContext(ctx, `SELECT id FROM task_sets WHERE kind = ? AND key = ?`, string(kind), key).Scan(&id)
			switch {
			case err == nil:
				return nil
			case !errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("history: %w", err)
			}
		}
		created = true
		var k sql.NullString
		if key != "" {
			k = sql.NullString{String: key, Valid: true}
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO task_sets (kind, key, name, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			string(kind), k, name, ms(s.now())).Scan(&id); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO task_set_lines (set_id, line, operation, label, content) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		defer stmt.Close()
		for _, m := range members {
			if _, err := stmt.ExecContext(ctx, id, m.Line, string(m.Operation), m.Label, m.Content); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		return nil
	})
	return id, created, err
}

// SetMembers lists a set's lines in order, with the task row each made.
func (s *Store) SetMembers(ctx context.Context, setID int64) ([]record.SetMember, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT line, operation, label, coalesce(local_id, 0), discarded, content, retried
		FROM task_set_lines WHERE set_id = ? ORDER BY line`, setID)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.SetMember
	for rows.Next() {
		var m record.SetMember
		var op string
		if err := rows.Scan(&m.Line, &op, &m.Label, &m.LocalID, &m.Discarded, &m.Content, &m.Retried); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		m.Operation = api.Operation(op)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// RetryFailedLines unties the lines of a set whose task failed, once per
// line (a line retried before keeps its new task), so that a run sends
// them again; it returns those lines. Their first tasks stay in history.
func (s *Store) RetryFailedLines(ctx context.Context, setID int64) ([]int, error) {
	var lines []int
	err := s.write(ctx, func(tx *dbTx) error {
		lines = lines[:0]
		rows, err := tx.QueryContext(ctx, `SELECT l.line FROM task_set_lines l JOIN tasks t ON t.id = l.local_id
			WHERE l.set_id = ? AND l.retried = 0 AND t.state = ? ORDER BY l.line`, setID, api.StateFailed)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		for rows.Next() {
			var line int
			if err := rows.Scan(&line); err != nil {
				rows.Close()
				return fmt.Errorf("history: %w", err)
			}
			lines = append(lines, line)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		for _, line := range lines {
			if _, err := tx.ExecContext(ctx, `UPDATE task_set_lines SET local_id = NULL, retried = 1 WHERE set_id = ? AND line = ?`, setID, line); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		return nil
	})
	return lines, err
}

// DropSet forgets a set that sent nothing (a batch checked or refused
// before it ran): its lines go, the tasks its lines were tied to stay.
func (s *Store) DropSet(ctx context.Context, setID int64) error {
	return s.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM task_set_lines WHERE set_id = ?`, setID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM task_sets WHERE id = ?`, setID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// RanBefore ties each line of set setID that an earlier set of its kind
// ran with the same content (a line of an earlier run of the batch file,
// unchanged though it may have moved) to the task that run made, so that
// it is not sent again; it returns the lines it tied, by line, with their
// tasks. The newest earlier task of a content is taken.
func (s *Store) RanBefore(ctx context.Context, setID int64) (map[int]int64, error) {
	tied := map[int]int64{}
	err := s.write(ctx, func(tx *dbTx) error {
		clear(tied)
		rows, err := tx.QueryContext(ctx, `SELECT l.line, (SELECT e.local_id FROM task_set_lines e
				JOIN task_sets es ON es.id = e.set_id
				WHERE e.content = l.content AND e.set_id <> l.set_id AND es.kind = s.kind AND e.local_id IS NOT NULL
				ORDER BY e.local_id DESC LIMIT 1)
			FROM task_set_lines l JOIN task_sets s ON s.id = l.set_id
			WHERE l.set_id = ? AND l.local_id IS NULL AND l.content <> ''`, setID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		var lines []int
		var tasks []int64
		for rows.Next() {
			var line int
			var localID sql.NullInt64
			if err := rows.Scan(&line, &localID); err != nil {
				rows.Close()
				return fmt.Errorf("history: %w", err)
			}
			if localID.Valid {
				lines, tasks = append(lines, line), append(tasks, localID.Int64)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		for i, line := range lines {
			if _, err := tx.ExecContext(ctx, `UPDATE task_set_lines SET local_id = ? WHERE set_id = ? AND line = ? AND local_id IS NULL`,
				tasks[i], setID, line); err != nil {
				return fmt.Errorf("history: %w", err)
			}
			tied[line] = tasks[i]
		}
		return nil
	})
	return tied, err
}

// linkSetLine ties a set's line to the request being recorded, in the
// transaction that records it: a crash leaves the line either unsent or
// with its task. A line already tied to a request is refused, unless that
// request was refused because of a stale upload and is sent again anew
// (the studio's one retry), so no line is ever sent twice.
func linkSetLine(ctx context.Context, tx *dbTx, l record.SetLine, localID int64) error {
	res, err := tx.ExecContext(ctx, `UPDATE task_set_lines SET local_id = ?
		WHERE set_id = ? AND line = ? AND (local_id IS NULL
			OR local_id IN (SELECT id FROM tasks WHERE state = ? AND task_id IS NULL))`,
		localID, l.SetID, l.Line, record.StateRejected)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w (line %d)", record.ErrLineSent, l.Line)
	}
	return nil
}
