package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"clapper/api"
	"clapper/record"
)

// OffPeakWindow is how long the service has to finish an off-peak task.
const OffPeakWindow = 48 * time.Hour

// taskCols are the summary columns, in scanTask's order. The bulky request,
// payload, echo and result columns stay out of every list query.
const taskCols = `t.id, t.task_id, t.operation, t.model, t.prompt, t.state, t.err_code,
	t.credits, t.progress, t.off_peak, t.off_peak_deadline, t.created_at, t.updated_at,
	t.service_created_at, t.reject_status, t.reject_reason, t.reject_message,
	t.reject_trace_id, t.reject_fields, t.reject_retryable, t.origin,
	(SELECT min(c.url_expires_at) FROM creations c WHERE c.task = t.id AND c.url != ''),
	(SELECT i.sender FROM intent_senders i WHERE i.task = t.id),
	(SELECT i.beat_at FROM intent_senders i WHERE i.task = t.id),
	(SELECT group_concat(g.tag, ' ') FROM task_tags g WHERE g.task = t.id), t.note,
	(SELECT max(l.set_id) FROM task_set_lines l WHERE l.local_id = t.id), t.account, t.sent_by,
	(SELECT count(*) FROM task_set_lines l JOIN task_sets ks ON ks.id = l.set_id AND ks.keeper_line = l.line WHERE l.local_id = t.id)`

type scanner interface{ Scan(dest ...any) error }

func scanTask(sc scanner, extra ...any) (record.Task, error) {
	var (
		t                                   record.Task
		taskID                              sql.NullString
		progress                            sql.NullInt64
		deadline, created, updated, service sql.NullInt64
		rStatus                             sql.NullInt64
		rReason, rMessage, rTrace, rFields  sql.NullString
		rRetry                              sql.NullBool
		urlsExpire                          sql.NullInt64
		sender                              sql.NullString
		beat                                sql.NullInt64
		tags                                sql.NullString
		setID                               sql.NullInt64
		kept                                int64
	)
	dest := []any{&t.LocalID, &taskID, &t.Operation, &t.Model, &t.Prompt, &t.State, &t.ErrCode,
		&t.Credits, &progress, &t.OffPeak, &deadline, &created, &updated,
		&service, &rStatus, &rReason, &rMessage,
		&rTrace, &rFields, &rRetry, &t.Origin, &urlsExpire, &sender, &beat, &tags, &t.Note, &setID,
		&t.Account, &t.SentBy, &kept}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return record.Task{}, err
	}
	t.TaskID = taskID.String
	if progress.Valid {
		t.Progress = &progress.Int64
	}
	t.OffPeakDeadline = fromNullMS(deadline)
	t.CreatedAt = fromNullMS(created)
	t.UpdatedAt = fromNullMS(updated)
	t.ServiceCreatedAt = fromNullMS(service)
	t.URLsExpireAt = fromNullMS(urlsExpire)
	t.Sender, t.SenderBeat = sender.String, fromNullMS(beat)
	t.Tags = strings.Fields(tags.String)
	t.SetID = setID.Int64
	t.Keeper = kept > 0
	if rStatus.Valid {
		t.Rejection = &record.Rejection{
			Status: int(rStatus.Int64), Reason: rReason.String, Message: rMessage.String,
			TraceID: rTrace.String, Retryable: rRetry.Bool,
		}
		if rFields.Valid {
			if err := json.Unmarshal([]byte(rFields.String), &t.Rejection.Fields); err != nil {
				return record.Task{}, fmt.Errorf("history: task %d: rejection fields: %w", t.LocalID, err)
			}
		}
	}
	return t, nil
}

func collectTasks(rows *sql.Rows, err error) ([]record.Task, error) {
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// Task is one task with its detail, by local id.
func (s *Store) Task(ctx context.Context, localID int64) (record.Task, error) {
	return s.taskWhere(ctx, "t.id = ?", localID)
}

// TaskByID is one task with its detail, by the service's task id.
func (s *Store) TaskByID(ctx context.Context, taskID string) (record.Task, error) {
	return s.taskWhere(ctx, "t.task_id = ?", taskID)
}

// TaskSummaries are the list rows (the summary fields only) of the tasks
// with these service ids, read together: what the lists need to redraw the
// rows a frame's events changed, in one query however many they are. An id
// history does not hold is left out.
func (s *Store) TaskSummaries(ctx context.Context, taskIDs []string) ([]record.Task, error) {
	var out []record.Task
	// SQLite binds at most 32,766 parameters; a frame's events are far fewer.
	const chunk = 500
	for len(taskIDs) > 0 {
		ids := taskIDs[:min(chunk, len(taskIDs))]
		taskIDs = taskIDs[len(ids):]
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		rows, err := s.r.QueryContext(ctx, `SELECT `+taskCols+` FROM tasks t WHERE t.task_id IN (?`+strings.Repeat(",?", len(ids)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		for rows.Next() {
			t, err := scanTask(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("history: %w", err)
			}
			out = append(out, t)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	return out, nil
}

func (s *Store) taskWhere(ctx context.Context, where string, arg any) (record.Task, error) {
	var t record.Task
	err := s.read(ctx, func(tx *dbTx) error {
		var (
			req, echo, result sql.NullString
			payload           string
			pending           bool
		)
		row := tx.QueryRowContext(ctx, `SELECT `+taskCols+`, t.request, t.payload, t.echo, t.result,
			EXISTS (SELECT 1 FROM pending_bodies p WHERE p.task = t.id)
			FROM tasks t WHERE `+where, arg)
		var err error
		t, err = scanTask(row, &req, &payload, &echo, &result, &pending)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: task %v", record.ErrNotFound, arg)
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		t.Request, t.Echo, t.Result = bytesOf(req), bytesOf(echo), bytesOf(result)
		t.Payload, t.Pending = payload, pending
		if t.Media, err = mediaRefs(ctx, tx, t.LocalID); err != nil {
			return err
		}
		if t.Creations, err = creations(ctx, tx, t.LocalID); err != nil {
			return err
		}
		if t.From, t.Onward, err = chain(ctx, tx, t.LocalID); err != nil {
			return err
		}
		if t.SavedOn, err = s.savedElsewhere(ctx, tx, t.LocalID); err != nil {
			return err
		}
		t.Events, err = events(ctx, tx, t.LocalID)
		return err
	})
	return t, err
}

func mediaRefs(ctx context.Context, tx *dbTx, localID int64) ([]record.MediaRef, error) {
	rows, err := tx.QueryContext(ctx, `SELECT path, content_type, sha256, bytes
		FROM media_refs WHERE task = ? ORDER BY path`, localID)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.MediaRef
	for rows.Next() {
		var m record.MediaRef
		if err := rows.Scan(&m.Path, &m.ContentType, &m.SHA256, &m.Bytes); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func creations(ctx context.Context, tx *dbTx, localID int64) ([]record.Creation, error) {
	rows, err := tx.QueryContext(ctx, `SELECT idx, creation_id, url, url_expires_at,
		cover_url, cover_expires_at, watermarked_url, watermarked_expires_at, updated_at
		FROM creations WHERE task = ? ORDER BY idx`, localID)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.Creation
	for rows.Next() {
		var (
			c                     record.Creation
			urlExp, covExp, wmExp sql.NullInt64
			updated               int64
		)
		if err := rows.Scan(&c.Index, &c.ID, &c.URL, &urlExp, &c.CoverURL, &covExp,
			&c.WatermarkedURL, &wmExp, &updated); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		c.URLExpiresAt, c.CoverExpiresAt, c.WatermarkedExpiresAt = fromNullMS(urlExp), fromNullMS(covExp), fromNullMS(wmExp)
		c.UpdatedAt = fromMS(updated)
		out = append(out, c)
	}
	return out, rows.Err()
}

func events(ctx context.Context, tx *dbTx, localID int64) ([]record.Event, error) {
	rows, err := tx.QueryContext(ctx, `SELECT from_state, to_state, at, raw
		FROM task_events WHERE task = ? ORDER BY id`, localID)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.Event
	for rows.Next() {
		var (
			e   record.Event
			at  int64
			raw sql.NullString
		)
		if err := rows.Scan(&e.From, &e.To, &at, &raw); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		e.At, e.Raw = fromMS(at), bytesOf(raw)
		out = append(out, e)
	}
	return out, rows.Err()
}

// ApplyResult records a task result in one transaction: the task row, an
// event when the state changed, and the creations (a re-read URL that
// differs from the stored one replaces it with its new expiry).
//
// Results can arrive out of order (a slow poll answer after a callback), so
// an update that does not supersede the recorded state (stale: one behind
// it, or any other state after a final one) writes nothing and changed is
// false. changed reports whether the state changed, so the caller sends one
// UI message per change, after the write.
func (s *Store) ApplyResult(ctx context.Context, taskID string, u record.Update) (changed bool, err error) {
	if u.State == "" {
		return false, fmt.Errorf("history: result for task %q has no state", taskID)
	}
	at := u.ObservedAt
	if at.IsZero() {
		at = s.now()
	}
	err = s.write(ctx, func(tx *dbTx) error {
		var (
			id, oldCredits int64
			state, code    string
			oldProgress    sql.NullInt64
			oldResult      sql.NullString
		)
		err := tx.QueryRowContext(ctx, `SELECT id, state, err_code, credits, progress, result FROM tasks WHERE task_id = ?`,
			taskID).Scan(&id, &state, &code, &oldCredits, &oldProgress, &oldResult)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: task %q", record.ErrNotFound, taskID)
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if stale(state, u.State) {
			return nil
		}
		var progress sql.NullInt64
		if u.Progress != nil {
			progress = sql.NullInt64{Int64: *u.Progress, Valid: true}
		}
		// A read that says what history already holds writes nothing: no
		// commit, so no change signal for every screen and process to act on.
		if u.State == state && u.ErrCode == code && (u.KeepCredits || u.Credits == oldCredits) &&
			(!progress.Valid || progress == oldProgress) &&
			(u.Raw == nil && len(u.Creations) == 0 || u.Raw != nil && oldResult.Valid && oldResult.String == string(u.Raw)) {
			return nil
		}
		credits := sql.NullInt64{Int64: u.Credits, Valid: !u.KeepCredits}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET state = ?, err_code = ?, credits = coalesce(?, credits),
			progress = coalesce(?, progress), result = coalesce(?, result), updated_at = ?
			WHERE id = ?`, u.State, u.ErrCode, credits, progress, nullText(u.Raw), ms(at), id); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if u.State != state {
			changed = true
			if err := insertEvent(ctx, tx, id, state, u.State, at, u.Raw); err != nil {
				return err
			}
		}
		return upsertCreations(ctx, tx, id, u.Creations, at)
	})
	return changed, err
}

// stale reports whether a service answer in state next must not replace
// the recorded state current, by api's one order of states (the tracker
// decides with it too). History's own states take their places in it: a
// request still being submitted comes before anything the service says,
// and a rejected or abandoned request is final, as a failed task is.
func stale(current, next string) bool {
	switch current {
	case record.StateSubmitting:
		current = ""
	case record.StateRejected, record.StateAbandoned:
		return next != current
	}
	return !api.Supersedes(current, next)
}

func insertEvent(ctx context.Context, tx *dbTx, localID int64, from, to string, at time.Time, raw []byte) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO task_events (task, from_state, to_state, at, raw)
		VALUES (?, ?, ?, ?, ?)`, localID, from, to, ms(at), nullText(raw)); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// upsertCreations keeps the stored expiry of a URL the service handed out
// again unchanged: the signature, and so the deadline, is the old one.
func upsertCreations(ctx context.Context, tx *dbTx, localID int64, cs []record.Creation, at time.Time) error {
	if len(cs) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO creations (task, idx, creation_id,
			url, url_expires_at, cover_url, cover_expires_at,
			watermarked_url, watermarked_expires_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (task, idx) DO UPDATE SET
			creation_id = excluded.creation_id,
			url = excluded.url,
			url_expires_at = CASE WHEN creations.url = excluded.url
				THEN creations.url_expires_at ELSE excluded.url_expires_at END,
			cover_url = excluded.cover_url,
			cover_expires_at = CASE WHEN creations.cover_url = excluded.cover_url
				THEN creations.cover_expires_at ELSE excluded.cover_expires_at END,
			watermarked_url = excluded.watermarked_url,
			watermarked_expires_at = CASE WHEN creations.watermarked_url = excluded.watermarked_url
				THEN creations.watermarked_expires_at ELSE excluded.watermarked_expires_at END,
			updated_at = excluded.updated_at`)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer stmt.Close()
	for _, c := range cs {
		if _, err := stmt.ExecContext(ctx, localID, c.Index, c.ID,
			c.URL, nullMS(c.URLExpiresAt), c.CoverURL, nullMS(c.CoverExpiresAt),
			c.WatermarkedURL, nullMS(c.WatermarkedExpiresAt), ms(at)); err != nil {
			return fmt.Errorf("history: creation %d: %w", c.Index, err)
		}
	}
	return nil
}

// promptOf picks the text a person would recognise a request by: its
// prompt, story or text, and for a request that has none its subject (a
// clone's voice, a music video's mode and song, the video an extend or an
// upscale starts from), so that such rows differ and a search by word
// finds them. parents are the tasks the request was sent onward from: a
// video extended is "#3's video" rather than a creation id.
func promptOf(op api.Operation, req map[string]any, parents []record.Parent) string {
	str := func(k string) string {
		s, _ := req[k].(string)
		return strings.TrimSpace(s)
	}
	switch op {
	case api.OpAudioClone:
		return str("voice_id")
	case api.OpPremiumMV:
		return joinNonEmpty(" · ", str("premium_mv_mode"), mediaName(str("audio_url")), str("prompt"))
	case api.OpTemplate2Video:
		return joinNonEmpty(" · ", str("template"), str("prompt"))
	case api.OpMultiframe:
		return keyFramesSubject(req, parents)
	case api.OpExtend:
		if p := str("prompt"); p != "" {
			return p
		}
		return joinNonEmpty(" ", "extend", sourceVideo(req, parents))
	case api.OpUpscaleNew:
		to := str("upscale_resolution")
		if to != "" {
			to = "to " + to
		}
		return joinNonEmpty(" · ", to, sourceVideo(req, parents))
	}
	for _, k := range []string{"prompt", "story", "text"} {
		if s := str(k); s != "" {
			return s
		}
	}
	var parts []string
	if tps, ok := req["timing_prompts"].([]any); ok {
		for _, tp := range tps {
			if m, ok := tp.(map[string]any); ok {
				if s, _ := m["prompt"].(string); s != "" {
					parts = append(parts, s)
				}
			}
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, " | ")
	}
	for _, k := range []string{"audio_url", "video_url", "style"} {
		if s := mediaName(str(k)); s != "" {
			return s
		}
	}
	// A video made from images alone (a result sent onward to a first
	// frame) is known by its first image.
	if images, ok := req["images"].([]any); ok && len(images) > 0 {
		if s, ok := images[0].(string); ok {
			return mediaName(strings.TrimSpace(s))
		}
	}
	return ""
}

// keyFramesSubject is a multiframe's subject: its key frames' prompts in
// their order, else how many frames it has and the image it starts from
// (the task it was sent onward from, else the file's name).
func keyFramesSubject(req map[string]any, parents []record.Parent) string {
	frames, _ := req["image_settings"].([]any)
	var prompts []string
	for _, f := range frames {
		kf, _ := f.(map[string]any)
		if s, _ := kf["prompt"].(string); strings.TrimSpace(s) != "" {
			prompts = append(prompts, strings.TrimSpace(s))
		}
	}
	if len(prompts) > 0 {
		return strings.Join(prompts, " | ")
	}
	start, _ := req["start_image"].(string)
	start = mediaName(strings.TrimSpace(start))
	for _, p := range parents {
		if p.Field == "start_image" {
			start = fmt.Sprintf("#%d's image", p.LocalID)
		}
	}
	count := fmt.Sprintf("%d key frames", len(frames))
	if len(frames) == 1 {
		count = "1 key frame"
	}
	return joinNonEmpty(" from ", count, start)
}

// sourceVideo names the video an extend or an upscale starts from: the
// task it was sent onward from, else the creation id given (it wins over
// a URL, as the service reads them), else the URL's file.
func sourceVideo(req map[string]any, parents []record.Parent) string {
	field := "video_url"
	if id, _ := req["video_creation_id"].(string); strings.TrimSpace(id) != "" {
		field = "video_creation_id"
	}
	for _, p := range parents {
		if p.Field == field {
			return fmt.Sprintf("#%d's video", p.LocalID)
		}
	}
	v, _ := req[field].(string)
	if v = strings.TrimSpace(v); field == "video_creation_id" {
		return "creation " + v
	}
	return mediaName(v)
}

// mediaName is how a list names a media field: a URL by its file name, an
// inlined file (a placeholder by now, see StripMedia) by its kind and size.
func mediaName(v string) string {
	if rest, ok := strings.CutPrefix(v, "data:"); ok {
		kind, _, _ := strings.Cut(rest, "/")
		var n int64
		for _, part := range strings.Split(rest, ";") {
			if b, ok := strings.CutPrefix(part, "bytes="); ok {
				n, _ = strconv.ParseInt(b, 10, 64)
			}
		}
		if n <= 0 {
			return "local " + kind
		}
		if n < 1e6 {
			return fmt.Sprintf("local %s %d kB", kind, (n+999)/1000)
		}
		return fmt.Sprintf("local %s %.1f MB", kind, float64(n)/1e6)
	}
	if u, err := url.Parse(v); err == nil && u.Scheme != "" {
		if base := path.Base(u.Path); base != "/" && base != "." {
			return base
		}
		return u.Host
	}
	return v
}

func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}
