package history

import (
	"clapper/record"
	"context"
	"fmt"
)

// Tags and a note: what the user says about a task, set from the detail
// (t) or `clapper tag`, found again with tag:NAME in every filter.

// SetLabels replaces a task's tags and note (checked by ParseTags and
// CleanNote first). The task's change sequence moves, so other windows
// showing it redraw.
func (s *Store) SetLabels(ctx context.Context, localID int64, tags []string, note string) error {
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET note = ? WHERE id = ?`, note, localID)
		if err != nil {
			return fmt.Errorf("history: labels: %w", err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("%w: task %d", record.ErrNotFound, localID)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM task_tags WHERE task = ?`, localID); err != nil {
			return fmt.Errorf("history: labels: %w", err)
		}
		for _, tag := range tags {
			if _, err := tx.ExecContext(ctx, `INSERT INTO task_tags (task, tag) VALUES (?, ?)
				ON CONFLICT DO NOTHING`, localID, tag); err != nil {
				return fmt.Errorf("history: labels: %w", err)
			}
		}
		return nil
	})
}
