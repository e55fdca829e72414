package history

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"clapper/api"
	"clapper/record"
)

// maxLineage bounds a lineage read: a chain longer than any person makes.
const maxLineage = 200

// Lineage is a task's whole chain: every task it was made from, through
// any number of sends onward (several sources each), and every task made
// from it, each with its depth (negative above it, 0 for it) and its links
// to the others; ordered by depth, then by id.
func (s *Store) Lineage(ctx context.Context, localID int64) ([]record.LineageNode, error) {
	rows, err := s.r.QueryContext(ctx, `WITH RECURSIVE up(id, depth) AS (
			SELECT CAST(? AS BIGINT), 0
			UNION
			SELECT p.parent, up.depth - 1 FROM task_parents p JOIN up ON p.task = up.id WHERE up.depth > -50
		), down(id, depth) AS (
			SELECT CAST(? AS BIGINT), 0
			UNION
			SELECT p.task, down.depth + 1 FROM task_parents p JOIN down ON p.parent = down.id WHERE down.depth < 50
		)
		SELECT id, max(depth) FROM up GROUP BY id
		UNION ALL
		SELECT id, min(depth) FROM down WHERE depth > 0 GROUP BY id
		LIMIT ?`, localID, localID, maxLineage)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	depth := map[int64]int{}
	var ids []any
	for rows.Next() {
		var id int64
		var d int
		if err := rows.Scan(&id, &d); err != nil {
			rows.Close()
			return nil, fmt.Errorf("history: %w", err)
		}
		if _, seen := depth[id]; !seen {
			ids = append(ids, id)
		}
		depth[id] = d
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	in := "(?" + strings.Repeat(", ?", len(ids)-1) + ")"
	nodes := map[int64]*record.LineageNode{}
	rows, err = s.r.QueryContext(ctx, `SELECT id, coalesce(task_id, ''), operation, state, prompt FROM tasks WHERE id IN `+in, ids...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	for rows.Next() {
		n := &record.LineageNode{}
		var op string
		if err := rows.Scan(&n.LocalID, &n.TaskID, &op, &n.State, &n.Prompt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("history: %w", err)
		}
		n.Operation, n.Depth = api.Operation(op), depth[n.LocalID]
		nodes[n.LocalID] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	// Every source of every task, in the lineage or not (a lip-sync's
	// speech beside the video it came down from).
	rows, err = s.r.QueryContext(ctx, `SELECT p.task, p.parent, p.field, coalesce(t.task_id, ''), t.operation, t.state
		FROM task_parents p JOIN tasks t ON t.id = p.parent WHERE p.task IN `+in+` ORDER BY p.task, p.field`, ids...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var child int64
		var l record.Link
		var op string
		if err := rows.Scan(&child, &l.LocalID, &l.Field, &l.TaskID, &op, &l.State); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		l.Operation = api.Operation(op)
		if c := nodes[child]; c != nil {
			c.From = append(c.From, l)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	out := make([]record.LineageNode, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, *n)
	}
	slices.SortFunc(out, func(a, b record.LineageNode) int {
		if a.Depth != b.Depth {
			return a.Depth - b.Depth
		}
		return int(a.LocalID - b.LocalID)
	})
	return out, nil
}
