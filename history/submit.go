package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"clapper/api"
	"clapper/record"
)

// BeginSubmit records the intent before the POST, in one transaction: the
// task row (state submitting, request stripped of data URIs), the media refs,
// the full body for a resubmission and the first event.
func (s *Store) BeginSubmit(ctx context.Context, in record.Intent) (localID int64, err error) {
	v, stripped, refs, err := record.StripMedia(in.Body)
	if err != nil {
		return 0, err
	}
	req, _ := v.(map[string]any)
	model := in.Model
	if model == "" {
		model, _ = req["model"].(string)
	}
	payload, _ := req["payload"].(string)
	offPeak, _ := req["off_peak"].(bool)
	now := s.now()
	err = s.write(ctx, func(tx *dbTx) error {
		// created_at never decreases with the local id, even when the clock
		// steps back, so that newest-first by (created_at, id) is also
		// newest-first by id: the order the search index can walk and stop.
		var last int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(created_at), 0) FROM tasks`).Scan(&last); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		created := now
		if last > now.UnixMilli() {
			created = fromMS(last)
		}
		var set int64
		if in.Set != nil {
			set = in.Set.SetID // its own set's hold is room for it
		}
		if err := s.checkCaps(ctx, tx, in.Reserve, in.Caps, set); err != nil {
			return err
		}
		var deadline sql.NullInt64
		if offPeak {
			deadline = nullMS(created.Add(OffPeakWindow))
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO tasks (operation, model, prompt, state, request,
				payload, off_peak, off_peak_deadline, created_at, updated_at, origin, account, sent_by, reserved)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			in.Operation, model, promptOf(in.Operation, req, in.Parents), record.StateSubmitting, string(stripped),
			payload, offPeak, deadline, ms(created), ms(now), string(in.Origin), s.account, s.sentBy, in.Reserve).Scan(&localID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO pending_bodies (task, body) VALUES (?, ?)`,
			localID, in.Body); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if err := setSender(ctx, tx, localID, in.Sender, now); err != nil {
			return err
		}
		if in.Set != nil {
			if err := linkSetLine(ctx, tx, *in.Set, localID); err != nil {
				return err
			}
			// The line's own reservation takes over its share of the set's.
			if _, err := tx.ExecContext(ctx, `UPDATE task_sets SET reserved = max(reserved - ?, 0) WHERE id = ?`,
				in.Reserve, in.Set.SetID); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		for _, p := range in.Parents {
			if err := linkParent(ctx, tx, p, localID); err != nil {
				return err
			}
		}
		for _, r := range refs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO media_refs (task, path, content_type, sha256, bytes)
				VALUES (?, ?, ?, ?, ?)`, localID, r.Path, r.ContentType, r.SHA256, r.Bytes); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		return insertEvent(ctx, tx, localID, "", record.StateSubmitting, now, nil)
	})
	return localID, err
}

// MarkSubmitted records the service's answer: the task id, its state and
// echo. The full body is dropped: from now on the task is tracked by its id.
func (s *Store) MarkSubmitted(ctx context.Context, localID int64, e record.SubmittedEcho) error {
	state := e.State
	if state == "" {
		state = api.StateCreated
	}
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		// An abandoned request whose answer arrives after all made a task
		// (billed): it is reattached and followed, never refused.
		from, err := lockState(ctx, tx, localID, record.StateSubmitting, record.StateAbandoned)
		if err != nil {
			return err
		}
		if err := checkTaskIDFree(ctx, tx, e.TaskID); err != nil {
			return err
		}
		var offPeak sql.NullBool
		if e.OffPeak != nil {
			offPeak = sql.NullBool{Bool: *e.OffPeak, Valid: true}
		}
		// The off-peak window runs from the service's creation time when it
		// told us, else from our own.
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET task_id = ?, state = ?, credits = ?,
				echo = ?, service_created_at = ?, off_peak = coalesce(?, off_peak), updated_at = ?
			WHERE id = ?`, e.TaskID, state, e.Credits, nullText(e.Raw), nullMS(e.CreatedAt),
			offPeak, ms(now), localID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET off_peak_deadline =
				CASE WHEN off_peak != 0 THEN coalesce(service_created_at, created_at) + ? END
			WHERE id = ?`, OffPeakWindow.Milliseconds(), localID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if err := dropPending(ctx, tx, localID); err != nil {
			return err
		}
		return insertEvent(ctx, tx, localID, from, state, now, e.Raw)
	})
}

// MarkRejected records a refusal. The full body stays, so the user can
// resubmit it (Resubmit) or give up (Abandon).
func (s *Store) MarkRejected(ctx context.Context, localID int64, r record.Rejection) error {
	var fields []byte
	if r.Fields != nil {
		var err error
		if fields, err = json.Marshal(r.Fields); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		if _, err := lockState(ctx, tx, localID, record.StateSubmitting); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET state = ?, reject_status = ?,
				reject_reason = ?, reject_message = ?, reject_trace_id = ?, reject_fields = ?,
				reject_retryable = ?, updated_at = ?
			WHERE id = ?`, record.StateRejected, r.Status, r.Reason, r.Message, r.TraceID,
			nullText(fields), r.Retryable, ms(now), localID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if err := dropSender(ctx, tx, localID); err != nil {
			return err
		}
		return insertEvent(ctx, tx, localID, record.StateSubmitting, record.StateRejected, now, nil)
	})
}

// PendingBody is the full body of a task that has no task id yet.
func (s *Store) PendingBody(ctx context.Context, localID int64) ([]byte, error) {
	var body []byte
	err := s.r.QueryRowContext(ctx, `SELECT body FROM pending_bodies WHERE task = ?`, localID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: no pending body for task %d", record.ErrNotFound, localID)
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return body, nil
}

// Resubmit moves a rejected task back to submitting and returns its body, in
// one transaction: the caller POSTs it next, and a crash during that POST
// leaves an unknown outcome rather than a rejection that silently went out
// again.
func (s *Store) Resubmit(ctx context.Context, localID int64) ([]byte, error) {
	var body []byte
	now := s.now()
	err := s.write(ctx, func(tx *dbTx) error {
		if _, err := lockState(ctx, tx, localID, record.StateRejected); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `SELECT body FROM pending_bodies WHERE task = ?`, localID).Scan(&body)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: no pending body for task %d", record.ErrNotFound, localID)
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET state = ?, updated_at = ? WHERE id = ?`,
			record.StateSubmitting, ms(now), localID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return insertEvent(ctx, tx, localID, record.StateRejected, record.StateSubmitting, now, nil)
	})
	return body, err
}

// UnknownOutcomes are the intents still submitting, oldest first: at start-up,
// requests whose POST may or may not have reached the service. They are for
// the user to resolve (ResolveUnknown) or drop (Abandon), never to resubmit
// silently.
func (s *Store) UnknownOutcomes(ctx context.Context) ([]record.Task, error) {
	return collectTasks(s.r.QueryContext(ctx, `SELECT `+taskCols+` FROM tasks t
		WHERE t.state = ? ORDER BY t.created_at, t.id`, record.StateSubmitting))
}

// ResolveUnknown attaches the task id the user found for an unknown outcome;
// the task continues as created and the tracker's next poll corrects it.
func (s *Store) ResolveUnknown(ctx context.Context, localID int64, taskID string) error {
	if err := api.CheckID(taskID); err != nil {
		return err
	}
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		// An abandoned request may be attached too: its task turned up.
		from, err := lockState(ctx, tx, localID, record.StateSubmitting, record.StateAbandoned)
		if err != nil {
			return err
		}
		if err := checkTaskIDFree(ctx, tx, taskID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET task_id = ?, state = ?, updated_at = ? WHERE id = ?`,
			taskID, api.StateCreated, ms(now), localID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if err := dropPending(ctx, tx, localID); err != nil {
			return err
		}
		return insertEvent(ctx, tx, localID, from, api.StateCreated, now, nil)
	})
}

// Abandon gives up on an unknown outcome or a rejection; the row stays as
// history, the full body goes.
func (s *Store) Abandon(ctx context.Context, localID int64) error {
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		from, err := lockState(ctx, tx, localID, record.StateSubmitting, record.StateRejected)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET state = ?, updated_at = ? WHERE id = ?`,
			record.StateAbandoned, ms(now), localID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if err := dropPending(ctx, tx, localID); err != nil {
			return err
		}
		return insertEvent(ctx, tx, localID, from, record.StateAbandoned, now, nil)
	})
}

// InFlight are the tasks the tracker must follow: with a task id, not in a
// final state and not lost (RecordNotFound), oldest first. A state the spec
// does not name is in flight: the service has not said the task ended.
func (s *Store) InFlight(ctx context.Context) ([]record.Task, error) {
	// The states that occur come from task_counts (a few rows), so the task
	// query stays an index lookup on state however large the history.
	var states []any
	err := s.read(ctx, func(tx *dbTx) error {
		rows, err := tx.QueryContext(ctx, `SELECT state FROM task_counts WHERE n > 0`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var st string
			if err := rows.Scan(&st); err != nil {
				return err
			}
			if followed(st) {
				states = append(states, st)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("history: in flight: %w", err)
	}
	if len(states) == 0 {
		return nil, nil
	}
	return collectTasks(s.r.QueryContext(ctx, `SELECT `+taskCols+` FROM tasks t
		WHERE t.state IN (?`+strings.Repeat(", ?", len(states)-1)+`) AND t.task_id IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM not_found n WHERE n.task = t.id AND n.lost_at IS NOT NULL)
		ORDER BY t.created_at, t.id`, states...))
}

// lockState reads the task's state inside the write transaction (which holds
// the write lock, so nothing changes it before the update) and checks that it
// is one of allowed.
func lockState(ctx context.Context, tx *dbTx, localID int64, allowed ...string) (string, error) {
	var state string
	err := tx.QueryRowContext(ctx, `SELECT state FROM tasks WHERE id = ?`, localID).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: task %d", record.ErrNotFound, localID)
	}
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	if !slices.Contains(allowed, state) {
		return "", fmt.Errorf("%w: task %d is %s, not %v", record.ErrConflict, localID, state, allowed)
	}
	return state, nil
}

func checkTaskIDFree(ctx context.Context, tx *dbTx, taskID string) error {
	if taskID == "" {
		return fmt.Errorf("history: the service answered without a task id")
	}
	var other int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM tasks WHERE task_id = ?`, taskID).Scan(&other)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("history: %w", err)
	}
	return fmt.Errorf("%w: task id %q already belongs to task %d", record.ErrConflict, taskID, other)
}

func dropPending(ctx context.Context, tx *dbTx, localID int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM pending_bodies WHERE task = ?`, localID); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return dropSender(ctx, tx, localID)
}

// setSender records who sends a request now; an empty sender (a caller
// that does not say) leaves the request without one.
func setSender(ctx context.Context, tx *dbTx, localID int64, sender string, at time.Time) error {
	if sender == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO intent_senders (task, sender, beat_at) VALUES (?, ?, ?)
		ON CONFLICT (task) DO UPDATE SET sender = excluded.sender, beat_at = excluded.beat_at`,
		localID, sender, ms(at)); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// dropSender ends the sending of a request: it was answered or given up.
func dropSender(ctx context.Context, tx *dbTx, localID int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM intent_senders WHERE task = ?`, localID); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// StopSending records that nobody sends request localID any more: its
// POST ended without an answer (a cut connection, a 5xx), so it is of
// unknown outcome from now on, for every process.
func (s *Store) StopSending(ctx context.Context, localID int64) error {
	return s.write(ctx, func(tx *dbTx) error { return dropSender(ctx, tx, localID) })
}

// BeatIntent says that sender is still sending request localID (its POST
// has not answered yet). ErrConflict when the request is no longer being
// sent (answered, refused or given up meanwhile).
func (s *Store) BeatIntent(ctx context.Context, localID int64, sender string) error {
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		if _, err := lockState(ctx, tx, localID, record.StateSubmitting); err != nil {
			return err
		}
		return setSender(ctx, tx, localID, sender, now)
	})
}

// followed reports whether a task in state st is one the watcher follows:
// sent, and not ended (a word the spec does not name stays followed until
// the service names a final state).
func followed(st string) bool {
	switch st {
	case record.StateSubmitting, record.StateRejected, record.StateAbandoned:
		return false
	}
	return !api.IsTerminal(st)
}
