package history

import (
	"context"
	"fmt"
	"time"

	"clapper/api"
)

// RunningTimes are how long the latest successful tasks of an operation
// and model were seen processing (from the read that first saw processing
// to the one that saw success), newest first: what the watcher's schedule
// expects of the next one before it has seen any finish in this run.
func (s *Store) RunningTimes(ctx context.Context, op api.Operation, model string) ([]time.Duration, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT done.at - started.at FROM tasks t
		JOIN task_events done ON done.task = t.id AND done.to_state = ?
		JOIN task_events started ON started.task = t.id AND started.to_state = ?
		WHERE t.state = ? AND t.operation = ? AND t.model = ?
		ORDER BY t.created_at DESC LIMIT ?`,
		api.StateSuccess, api.StateProcessing, api.StateSuccess, string(op), model, usualSamples)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var took []time.Duration
	for rows.Next() {
		var d int64
		if err := rows.Scan(&d); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		if d > 0 {
			took = append(took, time.Duration(d)*time.Millisecond)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return took, nil
}
