package history

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"clapper/api"
	"clapper/record"
)

// FollowableSince lists what the tracker must follow among the tasks
// written after the change sequence seq: tasks in flight as InFlight lists
// them, and multi-scene jobs with a version under way as BusyJobs lists them
// (with State set to processing: the job reads processing again while a
// version is made); the whole history oldest first, changes in the order
// they were written. next is the sequence to pass on the next
// call; seq 0 reads the whole history. A reader that calls it on every
// change reads only what changed, whichever process wrote it.
func (s *Store) FollowableSince(ctx context.Context, seq int64) (tasks []record.Task, next int64, err error) {
	// The mark is read first: a row written after it is read again next
	// time, never missed.
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(max(change_seq), 0) FROM tasks`).Scan(&next); err != nil {
		return nil, 0, fmt.Errorf("history: %w", err)
	}
	if seq <= 0 {
		if tasks, err = s.InFlight(ctx); err != nil {
			return nil, 0, err
		}
		busy, err := s.BusyJobs(ctx)
		if err != nil {
			return nil, 0, err
		}
		for _, t := range busy {
			t.State = api.StateProcessing
			tasks = append(tasks, t)
		}
		return slices.DeleteFunc(tasks, func(t record.Task) bool { return !s.ours(t) }), next, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+taskCols+`,
		t.operation = ? AND t.state IN (?, ?)
			AND EXISTS (SELECT 1 FROM sub_jobs v WHERE v.job = t.task_id AND v.state NOT IN (?, ?)
			AND v.seq = (SELECT max(w.seq) FROM sub_jobs w WHERE w.job = v.job
				AND w.record_type = v.record_type AND w.record_idx = v.record_idx))
		FROM tasks t
		WHERE t.change_seq > ? AND t.task_id IS NOT NULL AND (? = '' OR t.account IN ('', ?))
		AND NOT EXISTS (SELECT 1 FROM not_found n WHERE n.task = t.id AND n.lost_at IS NOT NULL)
		ORDER BY t.change_seq`,
		api.OpGeneralOneClick, api.StateSuccess, api.StateFailed, api.StateSuccess, api.StateFailed, seq, s.account, s.account)
	if err != nil {
		return nil, 0, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var busy sql.NullBool
		t, err := scanTask(rows, &busy)
		if err != nil {
			return nil, 0, fmt.Errorf("history: %w", err)
		}
		switch {
		case busy.Bool:
			t.State = api.StateProcessing
		case !followed(t.State):
			continue // not sent yet, or ended
		}
		tasks = append(tasks, t)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("history: %w", err)
	}
	return tasks, next, nil
}

// ours reports whether a task is this store's account's to follow: a task
// of another account on a team's database would be unknown to the service
// under this one's key. Tasks recorded before accounts were kept are
// everyone's.
func (s *Store) ours(t record.Task) bool {
	return s.account == "" || t.Account == "" || t.Account == s.account
}
