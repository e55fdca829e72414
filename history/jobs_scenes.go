package history

import (
	"context"
	"fmt"
	"time"

	"clapper/api"
	"clapper/record"
)

// What the scene editor keeps of a multi-scene job beside the service's
// record: the version of each scene chosen for the cut, versions the service
// accepted before any read listed them, and the files saved of versions.

// ChooseVersion records subJobID as the version of scene sceneIdx that the
// next composition uses; "" goes back to the default (the newest successful
// version). The version must be one of that scene's.
func (s *Store) ChooseVersion(ctx context.Context, jobID string, sceneIdx int, subJobID string) error {
	return s.write(ctx, func(tx *dbTx) error {
		if subJobID == "" {
			_, err := tx.ExecContext(ctx, `DELETE FROM scene_choices WHERE job = ? AND idx = ?`, jobID, sceneIdx)
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sub_jobs WHERE id = ? AND job = ?
			AND record_type = ? AND record_idx = ?`, subJobID, jobID, api.RecordGenerateVideo, sceneIdx).Scan(&n); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("%w: %s is not a version of scene %d of job %s", record.ErrNotFound, subJobID, sceneIdx, jobID)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO scene_choices (job, idx, sub_job, chosen_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (job, idx) DO UPDATE SET sub_job = excluded.sub_job, chosen_at = excluded.chosen_at`,
			jobID, sceneIdx, subJobID, ms(s.now()))
		return err
	})
}

func choices(ctx context.Context, tx *dbTx, jobID string) (map[int]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT idx, sub_job FROM scene_choices WHERE job = ?`, jobID)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var (
			idx int
			id  string
		)
		if err := rows.Scan(&idx, &id); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out[idx] = id
	}
	return out, rows.Err()
}

// AddVersion records a version the service has just accepted (the scene job
// of an edit, or a composition) as the newest of its record, state created,
// before any read of the job lists it: it shows at once, and a restart finds
// it running and follows the job again (BusyJobs). The next read of the job
// overwrites it with the service's own record. The job must be saved.
func (s *Store) AddVersion(ctx context.Context, jobID, recordType string, recordIdx int, v record.SubJob) error {
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_records (job, type, idx) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			jobID, recordType, recordIdx); err != nil {
			return fmt.Errorf("history: job %s: %w", jobID, err)
		}
		state := v.State
		if state == "" {
			state = api.StateCreated
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sub_jobs (id, job, record_type, record_idx, seq, idx,
				type, state, prompt, duration, input, created_at, fetched_at)
			VALUES (?, ?, ?, ?, (SELECT coalesce(max(seq) + 1, 0) FROM sub_jobs
				WHERE job = ? AND record_type = ? AND record_idx = ?), ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`,
			v.ID, jobID, recordType, recordIdx, jobID, recordType, recordIdx, recordIdx, recordType, state,
			v.Prompt, v.Duration, v.Input, ms(now), ms(now)); err != nil {
			return fmt.Errorf("history: job %s version %s: %w", jobID, v.ID, err)
		}
		return nil
	})
}

// BusyJobs lists the multi-scene tasks that settled while a version of one
// of their records is still being made (an edit or a composition sent after
// the job finished): InFlight does not list them, and they must be followed
// until that version ends. Lost tasks are left out, as InFlight leaves them.
func (s *Store) BusyJobs(ctx context.Context) ([]record.Task, error) {
	return collectTasks(s.r.QueryContext(ctx, `SELECT `+taskCols+` FROM tasks t
		WHERE t.operation = ? AND t.state IN (?, ?) AND t.task_id IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM not_found n WHERE n.task = t.id AND n.lost_at IS NOT NULL)
		AND EXISTS (SELECT 1 FROM sub_jobs v WHERE v.job = t.task_id AND v.state NOT IN (?, ?)
			AND v.seq = (SELECT max(w.seq) FROM sub_jobs w WHERE w.job = v.job
				AND w.record_type = v.record_type AND w.record_idx = v.record_idx))
		ORDER BY t.created_at, t.id`,
		api.OpGeneralOneClick, api.StateSuccess, api.StateFailed, api.StateSuccess, api.StateFailed))
}

// JobSummaries lists the multi-scene jobs, newest first: every
// general_one_click task with a task id, and the jobs read by id that no
// task of this history made.
func (s *Store) JobSummaries(ctx context.Context, limit int) ([]record.JobSummary, error) {
	// The page is picked first, from two lists each walked newest first by
	// an index (merged, stopped at the limit); the counts are made for the
	// rows of the page only.
	rows, err := s.r.QueryContext(ctx, `SELECT p.local, p.job, p.prompt, p.state, p.err_code,
		(SELECT count(*) FROM job_records r WHERE r.job = p.job AND r.type = 'generate_video'),
		(SELECT count(*) FROM sub_jobs v WHERE v.job = p.job AND v.record_type = 'generate_video'),
		(SELECT count(*) FROM sub_jobs v WHERE v.job = p.job AND v.state NOT IN ('success', 'failed')
			AND v.seq = (SELECT max(w.seq) FROM sub_jobs w WHERE w.job = v.job
				AND w.record_type = v.record_type AND w.record_idx = v.record_idx)),
		p.created
		FROM (
			SELECT t.id AS local, t.task_id AS job, t.prompt, t.state, t.err_code, t.created_at AS created
			FROM tasks t WHERE t.operation = ? AND t.task_id IS NOT NULL
			UNION ALL
			SELECT 0, j.id, '', j.state, j.err_code, coalesce(j.created_at, j.fetched_at)
			FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.task_id = j.id)
			ORDER BY 6 DESC, 2 DESC LIMIT ?
		) p ORDER BY p.created DESC, p.job DESC`, api.OpGeneralOneClick, limit)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.JobSummary
	for rows.Next() {
		var (
			js      record.JobSummary
			created int64
		)
		if err := rows.Scan(&js.LocalID, &js.JobID, &js.Prompt, &js.State, &js.ErrCode, &js.Scenes, &js.Versions,
			&js.Busy, &created); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		js.CreatedAt = fromMS(created)
		out = append(out, js)
	}
	return out, rows.Err()
}

// StartVersionDownload claims the download of a version into path. It
// reports false when another download of it is done, or running and renewed
// within stale (a run that died leaves it running; after stale another may
// take over).
func (s *Store) StartVersionDownload(ctx context.Context, jobID, subJobID, path string, stale time.Duration) (bool, error) {
	if s.local != nil {
		if err := s.mirrorJob(ctx, jobID); err != nil {
			return false, err
		}
		return s.local.StartVersionDownload(ctx, jobID, subJobID, path, stale)
	}
	now := s.now()
	var claimed bool
	err := s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO version_downloads (sub_job, job, path, status, updated_at)
			VALUES (?, ?, ?, 'running', ?)
			ON CONFLICT (sub_job) DO UPDATE SET path = excluded.path, status = 'running', bytes = 0,
				error = '', updated_at = excluded.updated_at
			WHERE version_downloads.status = 'failed'
				OR (version_downloads.status = 'running' AND version_downloads.updated_at < ?)`,
			subJobID, jobID, path, ms(now), ms(now.Add(-stale)))
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		n, err := res.RowsAffected()
		claimed = n == 1
		return err
	})
	return claimed, err
}

// LostVersionDownload records that the file a done download saved at path
// is gone: the download turns failed, so that the next Download claims it
// and saves the version again. A row saved since at another path is kept.
func (s *Store) LostVersionDownload(ctx context.Context, subJobID, path string) error {
	if s.local != nil {
		return s.local.LostVersionDownload(ctx, subJobID, path)
	}
	return s.write(ctx, func(tx *dbTx) error {
		_, err := tx.ExecContext(ctx, `UPDATE version_downloads SET status = 'failed', error = ?, updated_at = ?
			WHERE sub_job = ? AND status = 'done' AND path = ?`,
			"the saved file "+path+" is gone", ms(s.now()), subJobID, path)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// UnfinishedVersionDownloads are the saves of versions that did not end
// done: failed or stopped ones, and running ones not renewed within stale
// (their run died), oldest first.
func (s *Store) UnfinishedVersionDownloads(ctx context.Context, stale time.Duration) ([]record.VersionDownload, error) {
	if s.local != nil {
		return s.local.UnfinishedVersionDownloads(ctx, stale)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT job, sub_job, path, status, bytes, error, updated_at
		FROM version_downloads WHERE status = 'failed' OR (status = 'running' AND updated_at < ?)
		ORDER BY updated_at`, ms(s.now().Add(-stale)))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.VersionDownload
	for rows.Next() {
		var (
			d       record.VersionDownload
			updated int64
		)
		if err := rows.Scan(&d.Job, &d.SubJob, &d.Path, &d.Status, &d.Bytes, &d.Error, &updated); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		d.UpdatedAt = fromMS(updated)
		out = append(out, d)
	}
	return out, rows.Err()
}

// FinishVersionDownload records the outcome of a claimed download: done at
// path with bytes, or failed with why.
func (s *Store) FinishVersionDownload(ctx context.Context, subJobID, path string, bytes int64, why error) error {
	status, msg := record.DownloadDone, ""
	if why != nil {
		status, msg = record.DownloadFailed, why.Error()
	}
	if s.local != nil {
		return s.local.FinishVersionDownload(ctx, subJobID, path, bytes, why)
	}
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE version_downloads SET status = ?, path = coalesce(nullif(?, ''), path),
			bytes = ?, error = ?, updated_at = ? WHERE sub_job = ?`, status, path, bytes, msg, ms(s.now()), subJobID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: no download of version %s", record.ErrNotFound, subJobID)
		}
		return nil
	})
}

// versionDownloads are the saved files of job jobID's versions, read in
// tx: this machine's, in its machine file when the history is a team's.
func (s *Store) versionDownloads(ctx context.Context, tx *dbTx, jobID string) (map[string]record.VersionDownload, error) {
	var q rowsQueryer = tx
	if s.local != nil {
		q = s.local.r
	}
	rows, err := q.QueryContext(ctx, `SELECT sub_job, path, status, bytes, error, updated_at
		FROM version_downloads WHERE job = ?`, jobID)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	out := map[string]record.VersionDownload{}
	for rows.Next() {
		var (
			d       record.VersionDownload
			updated int64
		)
		if err := rows.Scan(&d.SubJob, &d.Path, &d.Status, &d.Bytes, &d.Error, &updated); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		d.Job, d.UpdatedAt = jobID, fromMS(updated)
		out[d.SubJob] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}
