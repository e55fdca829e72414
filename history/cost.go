package history

import (
	"context"
	"encoding/json"

	"clapper/api"
	"clapper/record"
)

// LastCost finds the newest successful, charged task of the operation and
// model whose request (data URIs stripped) like accepts, so the live
// service's price can be shown as "last time" rather than invented.
func (s *Store) LastCost(ctx context.Context, op api.Operation, model string, like func(request map[string]any) bool) (record.PastCost, bool, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT request, credits, created_at, coalesce(task_id, '')
		FROM tasks WHERE operation = ? AND model = ? AND state = ? AND credits > 0
		ORDER BY created_at DESC LIMIT 500`, string(op), model, api.StateSuccess)
	if err != nil {
		return record.PastCost{}, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			req     string
			pc      record.PastCost
			created int64
		)
		if err := rows.Scan(&req, &pc.Credits, &created, &pc.TaskID); err != nil {
			return record.PastCost{}, false, err
		}
		var body map[string]any
		if json.Unmarshal([]byte(req), &body) != nil {
			continue
		}
		if like(body) {
			pc.CreatedAt = fromMS(created)
			return pc, true, nil
		}
	}
	return record.PastCost{}, false, rows.Err()
}
