package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"errors"
	"fmt"
)

const setInfoColumns = `SELECT s.id, s.kind, s.name, s.created_at, coalesce(s.keeper_line, 0),
	(SELECT count(*) FROM task_set_lines l WHERE l.set_id = s.id),
	(SELECT count(local_id) FROM task_set_lines l WHERE l.set_id = s.id)
	FROM task_sets s`

func scanSetInfo(sc interface{ Scan(...any) error }) (record.SetInfo, error) {
	var si record.SetInfo
	var kind string
	var created int64
	if err := sc.Scan(&si.ID, &kind, &si.Name, &created, &si.Keeper, &si.Lines, &si.Sent); err != nil {
		return si, err
	}
	si.Kind, si.CreatedAt = record.SetKind(kind), fromMS(created)
	return si, nil
}

// Sets lists the newest sets first, at most limit.
func (s *Store) Sets(ctx context.Context, limit int) ([]record.SetInfo, error) {
	rows, err := s.r.QueryContext(ctx, setInfoColumns+` ORDER BY s.id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.SetInfo
	for rows.Next() {
		si, err := scanSetInfo(rows)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, si)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// Set reads one set's row.
func (s *Store) Set(ctx context.Context, id int64) (record.SetInfo, error) {
	si, err := scanSetInfo(s.r.QueryRowContext(ctx, setInfoColumns+` WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return si, record.ErrNoSet
	}
	if err != nil {
		return si, fmt.Errorf("history: %w", err)
	}
	return si, nil
}

// SetOfTask is the set a task was sent in (the newest, should a resent
// line tie it to another), or ErrNoSet.
func (s *Store) SetOfTask(ctx context.Context, localID int64) (int64, error) {
	var id int64
	err := s.r.QueryRowContext(ctx, `SELECT set_id FROM task_set_lines WHERE local_id = ? ORDER BY set_id DESC LIMIT 1`, localID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, record.ErrNoSet
	}
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return id, nil
}

// KeepSetLine marks a set's keeper: line, or none with 0.
func (s *Store) KeepSetLine(ctx context.Context, setID int64, line int) error {
	return s.write(ctx, func(tx *dbTx) error {
		var keeper sql.NullInt64
		if line != 0 {
			keeper = sql.NullInt64{Int64: int64(line), Valid: true}
		}
		res, err := tx.ExecContext(ctx, `UPDATE task_sets SET keeper_line = ? WHERE id = ?`, keeper, setID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return record.ErrNoSet
		}
		return nil
	})
}

// RestoreSetLine shows a discarded line on its contact sheet again (u on
// the sheet): a discard is only ever a hiding, so it can be undone.
func (s *Store) RestoreSetLine(ctx context.Context, setID int64, line int) error {
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE task_set_lines SET discarded = 0 WHERE set_id = ? AND line = ? AND discarded = 1`, setID, line)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w (no discarded line %d in set %d)", record.ErrNoSet, line, setID)
		}
		return nil
	})
}

// DiscardSetLine hides a set's line from its contact sheet (and clears it
// as the keeper). Its task and files stay.
func (s *Store) DiscardSetLine(ctx context.Context, setID int64, line int) error {
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE task_set_lines SET discarded = 1 WHERE set_id = ? AND line = ?`, setID, line)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w (line %d of set %d)", record.ErrNoSet, line, setID)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE task_sets SET keeper_line = NULL WHERE id = ? AND keeper_line = ?`, setID, line); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}
