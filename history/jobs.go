package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"clapper/api"
	"clapper/record"
)

// SignedURLLifetime bounds the life of a multi-scene signed URL ("valid under
// 3 minutes"): an upper bound, so a downloader should re-read the job first
// when it gets close.
const SignedURLLifetime = 3 * time.Minute

// SaveJob records a job as read from the service, in one transaction: the
// job, its records and every version of every record (versions the service no
// longer lists are kept). When the job is a task in the history, the task's
// state follows the job's under ApplyResult's rules, with an event, and the
// composed video becomes creation 0 so that downloads treat it like any other
// result. changed reports what a screen would show differently: a state
// change of that task, or a version that appeared or changed state (an edit
// or a composition under way while the job itself reads success).
func (s *Store) SaveJob(ctx context.Context, j api.OneClickJob) (changed bool, err error) {
	if j.ID == "" {
		return false, fmt.Errorf("history: SaveJob needs a job id")
	}
	now := s.now()
	err = s.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, type, creator_id, state, input,
				err_code, err_msg, signed_url, created_at, updated_at, fetched_at, raw)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET type = excluded.type, creator_id = excluded.creator_id,
				state = excluded.state, input = excluded.input, err_code = excluded.err_code,
				err_msg = excluded.err_msg, signed_url = excluded.signed_url,
				created_at = excluded.created_at, updated_at = excluded.updated_at,
				fetched_at = excluded.fetched_at, raw = excluded.raw`,
			j.ID, j.Type, j.CreatorID, j.State, string(j.Input), j.ErrCode, j.ErrMsg, j.SignedURL,
			nullMS(parseServiceTime(j.CreatedAt)), nullMS(parseServiceTime(j.UpdatedAt)), ms(now),
			nullText(j.Raw)); err != nil {
			return fmt.Errorf("history: job %s: %w", j.ID, err)
		}
		versions := false
		for _, rec := range j.JobRecords {
			moved, err := saveRecord(ctx, tx, j.ID, rec, now)
			if err != nil {
				return err
			}
			versions = versions || moved
		}
		changed, err = followJob(ctx, tx, j, now)
		changed = changed || versions
		return err
	})
	return changed, err
}

// saveRecord upserts a record's versions and reports whether one of them
// is new or changed state.
func saveRecord(ctx context.Context, tx *dbTx, jobID string, rec api.JobRecord, now time.Time) (moved bool, err error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO job_records (job, type, idx) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		jobID, rec.Type, int64(rec.Index)); err != nil {
		return false, fmt.Errorf("history: job %s: %w", jobID, err)
	}
	for seq, sj := range rec.Jobs {
		var was string
		switch err := tx.QueryRowContext(ctx, `SELECT state FROM sub_jobs WHERE id = ?`, sj.ID).Scan(&was); {
		case errors.Is(err, sql.ErrNoRows):
			moved = true
		case err != nil:
			return false, fmt.Errorf("history: %w", err)
		case was != sj.State:
			moved = true
		}
		var in api.SceneInput
		if sj.MVGenerateVideoInput != nil {
			in = *sj.MVGenerateVideoInput
		}
		images, err := json.Marshal(append([]string{}, in.SignedImages...))
		if err != nil {
			return false, fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sub_jobs (id, job, record_type, record_idx, seq, idx,
				type, state, prompt, lyric_text, duration, images, input, output, err_code, err_msg,
				signed_url, created_at, updated_at, fetched_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET job = excluded.job, record_type = excluded.record_type,
				record_idx = excluded.record_idx, seq = excluded.seq, idx = excluded.idx, type = excluded.type,
				state = excluded.state, prompt = excluded.prompt, lyric_text = excluded.lyric_text,
				duration = excluded.duration, images = excluded.images, input = excluded.input,
				output = excluded.output, err_code = excluded.err_code, err_msg = excluded.err_msg,
				signed_url = excluded.signed_url, created_at = excluded.created_at,
				updated_at = excluded.updated_at, fetched_at = excluded.fetched_at`,
			sj.ID, jobID, rec.Type, int64(rec.Index), seq, int64(sj.Index), sj.Type, sj.State, in.Prompt, in.LyricText,
			int64(in.Duration), string(images), string(sj.Input), string(sj.Output), sj.ErrCode, sj.ErrMsg,
			sj.SignedURL, nullMS(parseServiceTime(sj.CreatedAt)), nullMS(parseServiceTime(sj.UpdatedAt)),
			ms(now)); err != nil {
			return false, fmt.Errorf("history: job %s version %s: %w", jobID, sj.ID, err)
		}
		if sj.State == api.StateFailed {
			if err := refundFailed(ctx, tx, jobID, sj.ID, now); err != nil {
				return false, fmt.Errorf("history: job %s version %s: %w", jobID, sj.ID, err)
			}
		}
	}
	return moved, nil
}

// followJob carries the job's state over to its task, if the history has it.
func followJob(ctx context.Context, tx *dbTx, j api.OneClickJob, now time.Time) (bool, error) {
	var (
		localID int64
		state   string
	)
	err := tx.QueryRowContext(ctx, `SELECT id, state FROM tasks WHERE task_id = ?`, j.ID).Scan(&localID, &state)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	if j.State == "" || stale(state, j.State) {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET state = ?, err_code = ?,
		result = coalesce(?, result), updated_at = ? WHERE id = ?`,
		j.State, j.ErrCode, nullText(j.Raw), ms(now), localID); err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	if j.SignedURL != "" {
		c := []record.Creation{{ID: j.ID, URL: j.SignedURL, URLExpiresAt: now.Add(SignedURLLifetime)}}
		if err := upsertCreations(ctx, tx, localID, c, now); err != nil {
			return false, err
		}
	}
	if j.State == state {
		return false, nil
	}
	return true, insertEvent(ctx, tx, localID, state, j.State, now, j.Raw)
}

// Job is a multi-scene job as last saved.
func (s *Store) Job(ctx context.Context, id string) (record.Job, error) {
	var j record.Job
	err := s.read(ctx, func(tx *dbTx) error {
		var (
			localID          sql.NullInt64
			created, updated sql.NullInt64
			fetched          int64
			raw              sql.NullString
		)
		err := tx.QueryRowContext(ctx, `SELECT j.id, t.id, j.type, j.creator_id, j.state, j.input,
				j.err_code, j.err_msg, j.signed_url, j.created_at, j.updated_at, j.fetched_at, j.raw
			FROM jobs j LEFT JOIN tasks t ON t.task_id = j.id WHERE j.id = ?`, id).
			Scan(&j.ID, &localID, &j.Type, &j.CreatorID, &j.State, &j.Input, &j.ErrCode, &j.ErrMsg,
				&j.SignedURL, &created, &updated, &fetched, &raw)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: job %q", record.ErrNotFound, id)
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		j.LocalID = localID.Int64
		j.CreatedAt, j.UpdatedAt, j.FetchedAt = fromNullMS(created), fromNullMS(updated), fromMS(fetched)
		j.SignedURLExpiresAt = urlExpiry(j.SignedURL, j.FetchedAt)
		j.Raw = bytesOf(raw)
		records, err := jobRecords(ctx, tx, id)
		if err != nil {
			return err
		}
		if j.Choices, err = choices(ctx, tx, id); err != nil {
			return err
		}
		files, err := s.versionDownloads(ctx, tx, id)
		if err != nil {
			return err
		}
		for _, r := range records {
			for i := range r.Jobs {
				if f, ok := files[r.Jobs[i].ID]; ok {
					r.Jobs[i].Download = &f
				}
			}
			if r.Type == api.RecordCompose {
				j.Compose = append(j.Compose, r)
			} else {
				j.Scenes = append(j.Scenes, r)
			}
		}
		return nil
	})
	return j, err
}

func urlExpiry(url string, fetched time.Time) time.Time {
	if url == "" {
		return time.Time{}
	}
	return fetched.Add(SignedURLLifetime)
}

func jobRecords(ctx context.Context, tx *dbTx, jobID string) ([]record.JobRecord, error) {
	rows, err := tx.QueryContext(ctx, `SELECT r.type, r.idx, s.id, s.type, s.state, s.idx,
			s.prompt, s.lyric_text, s.duration, s.images, s.input, s.output, s.err_code, s.err_msg,
			s.signed_url, s.created_at, s.updated_at, s.fetched_at
		FROM job_records r LEFT JOIN sub_jobs s
			ON s.job = r.job AND s.record_type = r.type AND s.record_idx = r.idx
		WHERE r.job = ? ORDER BY r.type, r.idx, s.seq`, jobID)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.JobRecord
	for rows.Next() {
		var (
			rType                     string
			rIdx                      int
			id, typ, state            sql.NullString
			prompt, lyric, images     sql.NullString
			input, output, code, msg  sql.NullString
			url                       sql.NullString
			idx, duration             sql.NullInt64
			created, updated, fetched sql.NullInt64
		)
		if err := rows.Scan(&rType, &rIdx, &id, &typ, &state, &idx, &prompt, &lyric, &duration,
			&images, &input, &output, &code, &msg, &url, &created, &updated, &fetched); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		if n := len(out); n == 0 || out[n-1].Type != rType || out[n-1].Index != rIdx {
			out = append(out, record.JobRecord{Type: rType, Index: rIdx})
		}
		if !id.Valid {
			continue // a record without versions
		}
		sj := record.SubJob{
			ID: id.String, Type: typ.String, State: state.String, Index: int(idx.Int64),
			Prompt: prompt.String, LyricText: lyric.String, Duration: int(duration.Int64),
			Input: input.String, Output: output.String, ErrCode: code.String, ErrMsg: msg.String,
			SignedURL: url.String, CreatedAt: fromNullMS(created), UpdatedAt: fromNullMS(updated),
		}
		sj.SignedURLExpiresAt = urlExpiry(sj.SignedURL, fromNullMS(fetched))
		if err := json.Unmarshal([]byte(images.String), &sj.Images); err != nil {
			return nil, fmt.Errorf("history: job %s version %s: images: %w", jobID, sj.ID, err)
		}
		last := &out[len(out)-1]
		last.Jobs = append(last.Jobs, sj)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}
