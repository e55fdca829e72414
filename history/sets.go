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
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO task_set_lines (set_id, line, operation, label) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		defer stmt.Close()
		for _, m := range members {
			if _, err := stmt.ExecContext(ctx, id, m.Line, string(m.Operation), m.Label); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		return nil
	})
	return id, created, err
}

// SetMembers lists a set's lines in order, with the task row each made.
func (s *Store) SetMembers(ctx context.Context, setID int64) ([]record.SetMember, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT line, operation, label, coalesce(local_id, 0), discarded
		FROM task_set_lines WHERE set_id = ? ORDER BY line`, setID)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.SetMember
	for rows.Next() {
		var m record.SetMember
		var op string
		if err := rows.Scan(&m.Line, &op, &m.Label, &m.LocalID, &m.Discarded); err != nil {
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
