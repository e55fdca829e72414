package history

import (
	"context"
	"fmt"
	"slices"
	"time"

	"clapper/api"
	"clapper/record"
)

// usualSamples is how many recent successes a usual time is the median of:
// recent enough to follow the service's pace, enough to ignore one outlier.
const usualSamples = 32

// UsualDuration is the median time from creation to success of the latest
// successful tasks of an operation and model.
func (s *Store) UsualDuration(ctx context.Context, op api.Operation, model string) (record.Usual, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT e.at - t.created_at FROM tasks t
		JOIN task_events e ON e.task = t.id AND e.to_state = ?
		WHERE t.state = ? AND t.operation = ? AND t.model = ?
		ORDER BY t.created_at DESC LIMIT ?`,
		api.StateSuccess, api.StateSuccess, string(op), model, usualSamples)
	if err != nil {
		return record.Usual{}, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var took []time.Duration
	for rows.Next() {
		var d int64
		if err := rows.Scan(&d); err != nil {
			return record.Usual{}, fmt.Errorf("history: %w", err)
		}
		if d > 0 {
			took = append(took, time.Duration(d)*time.Millisecond)
		}
	}
	if err := rows.Err(); err != nil {
		return record.Usual{}, fmt.Errorf("history: %w", err)
	}
	if len(took) == 0 {
		return record.Usual{}, nil
	}
	slices.Sort(took)
	return record.Usual{Median: took[len(took)/2], Samples: len(took)}, nil
}
