package history

import (
	"context"
	"fmt"
	"strings"

	"clapper/record"
)

// linkParent ties a request being recorded to the task it was sent onward
// from; a parent unknown to history is refused, so no chain points nowhere.
func linkParent(ctx context.Context, tx *dbTx, p record.Parent, localID int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tasks WHERE id = ?`, p.LocalID).Scan(&n); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("%w: task #%d, sent onward from", record.ErrNotFound, p.LocalID)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO task_parents (task, parent, field) VALUES (?, ?, ?)`,
		localID, p.LocalID, p.Field); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// chain reads the tasks a task came from and the tasks sent onward from
// it, oldest first.
func chain(ctx context.Context, tx *dbTx, localID int64) ([]record.Link, []record.Link, error) {
	rows, err := tx.QueryContext(ctx, `SELECT 0, p.parent, coalesce(t.task_id, ''), t.operation, t.state, p.field
		FROM task_parents p JOIN tasks t ON t.id = p.parent WHERE p.task = ?
		UNION ALL
		SELECT 1, p.task, coalesce(t.task_id, ''), t.operation, t.state, p.field
		FROM task_parents p JOIN tasks t ON t.id = p.task WHERE p.parent = ?
		ORDER BY 1, 2, 6`, localID, localID)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var from, onward []record.Link
	for rows.Next() {
		var (
			child bool
			l     record.Link
		)
		if err := rows.Scan(&child, &l.LocalID, &l.TaskID, &l.Operation, &l.State, &l.Field); err != nil {
			return nil, nil, fmt.Errorf("history: %w", err)
		}
		if child {
			onward = append(onward, l)
		} else {
			from = append(from, l)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	return from, onward, nil
}

// TasksByResultURL finds the tasks whose results are at these URLs (the
// newest task of a URL), so that a request holding one is tied to it.
func (s *Store) TasksByResultURL(ctx context.Context, urls []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(urls) == 0 {
		return out, nil
	}
	args := make([]any, len(urls))
	for i, u := range urls {
		args[i] = u
	}
	rows, err := s.r.QueryContext(ctx, `SELECT url, max(task) FROM creations WHERE url <> '' AND url IN (?`+
		strings.Repeat(", ?", len(urls)-1)+`) GROUP BY url`, args...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u string
		var id int64
		if err := rows.Scan(&u, &id); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out[u] = id
	}
	return out, rows.Err()
}
