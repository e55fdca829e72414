package history

import (
	"clapper/api"
	"clapper/record"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A team's database holds what the team shares; what belongs to one
// machine lives in a history file in that machine's data folder, its
// machine file (OpenPostgres): the files it saved and their paths, the
// leases of its downloads, its scene versions' files and its upload cache.
// Paths mean nothing on another machine, a lease is between the processes
// of one, and an upload's URI was handed to this machine's key.
//
// The machine file is a history file like a person's own, so downloads
// run there on the same SQL. A download's row hangs on its task and
// creation: the first download of a task copies the task's id and
// creations from the team's database into the file (mirrorTask), and every
// read of downloads takes the URLs from the team's database (sharedURLs),
// where the poller renews them. What the team learns of a save is that it
// happened: saved_copies, shown as "saved on NAME" on the other machines.

// rowsQueryer is a pool or a transaction that runs queries.
type rowsQueryer interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// mirrorTask copies the task taskID and its creations from the team's
// database into the machine file, so that a download of it can be kept
// there. A row of the file under the task's id or task id that is not this
// task (the team's database was made anew, and its ids given again) goes
// with its downloads: they were of another task.
func (s *Store) mirrorTask(ctx context.Context, taskID string) error {
	var (
		id        int64
		operation string
	)
	err := s.r.QueryRowContext(ctx, `SELECT id, operation FROM tasks WHERE task_id = ?`, taskID).Scan(&id, &operation)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: task %q", record.ErrNotFound, taskID)
	}
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	type creation struct {
		idx                                 int
		url, cover, watermarked             string
		urlExpires, coverExpires, wmExpires sql.NullInt64
		updated                             int64
	}
	rows, err := s.r.QueryContext(ctx, `SELECT idx, url, url_expires_at, cover_url, cover_expires_at,
		watermarked_url, watermarked_expires_at, updated_at FROM creations WHERE task = ?`, id)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	var creations []creation
	for rows.Next() {
		var c creation
		if err := rows.Scan(&c.idx, &c.url, &c.urlExpires, &c.cover, &c.coverExpires, &c.watermarked, &c.wmExpires, &c.updated); err != nil {
			rows.Close()
			return fmt.Errorf("history: %w", err)
		}
		creations = append(creations, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	now := ms(s.now())
	return s.local.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM tasks WHERE (id = ?1 AND task_id IS NOT ?2) OR (task_id = ?2 AND id != ?1)`,
			id, taskID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tasks (id, task_id, operation, state, request, created_at, updated_at)
			VALUES (?, ?, ?, 'success', '{}', ?, ?) ON CONFLICT (id) DO NOTHING`, id, taskID, operation, now, now); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		for _, c := range creations {
			if _, err := tx.ExecContext(ctx, `INSERT INTO creations (task, idx, url, url_expires_at, cover_url, cover_expires_at,
					watermarked_url, watermarked_expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (task, idx) DO UPDATE SET url = excluded.url, url_expires_at = excluded.url_expires_at,
					cover_url = excluded.cover_url, cover_expires_at = excluded.cover_expires_at,
					watermarked_url = excluded.watermarked_url, watermarked_expires_at = excluded.watermarked_expires_at,
					updated_at = excluded.updated_at`,
				id, c.idx, c.url, c.urlExpires, c.cover, c.coverExpires, c.watermarked, c.wmExpires, c.updated); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		return nil
	})
}

// adoptOldRows moves into the machine file this machine's rows that a
// team's database kept before machine files (migration 0031 left them in
// old_machine_*), and deletes them there: each machine's on its first
// start, a second start finds none. A download of a creation the database
// no longer holds is left out: there is nothing to fetch or show it by.
func (s *Store) adoptOldRows(ctx context.Context) error {
	var waiting bool
	if err := s.r.QueryRowContext(ctx, `SELECT to_regclass('old_machine_downloads') IS NOT NULL`).Scan(&waiting); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if !waiting {
		return nil
	}
	type download struct {
		taskID, kind, path, status, error, owner string
		idx                                      int
		bytes, total, created, updated           int64
		lease                                    sql.NullInt64
	}
	var downloads []download
	err := s.each(ctx, func(rows *sql.Rows) error {
		var d download
		if err := rows.Scan(&d.taskID, &d.idx, &d.kind, &d.path, &d.status, &d.bytes, &d.total, &d.error,
			&d.created, &d.updated, &d.owner, &d.lease); err != nil {
			return err
		}
		downloads = append(downloads, d)
		return nil
	}, `SELECT t.task_id, d.idx, d.kind, d.path, d.status, d.bytes, d.total, d.error, d.created_at, d.updated_at,
		d.owner, d.lease_until FROM old_machine_downloads d JOIN tasks t ON t.id = d.task
		WHERE d.machine = ? AND t.task_id IS NOT NULL ORDER BY d.id`, s.machine)
	if err != nil {
		return err
	}
	type version struct {
		subJob, job, path, status, error string
		bytes, updated                   int64
	}
	var versions []version
	err = s.each(ctx, func(rows *sql.Rows) error {
		var v version
		if err := rows.Scan(&v.subJob, &v.job, &v.path, &v.status, &v.bytes, &v.error, &v.updated); err != nil {
			return err
		}
		versions = append(versions, v)
		return nil
	}, `SELECT sub_job, job, path, status, bytes, error, updated_at FROM old_machine_version_downloads WHERE machine = ?`, s.machine)
	if err != nil {
		return err
	}
	var uploads []record.Upload
	err = s.each(ctx, func(rows *sql.Rows) error {
		var (
			u                record.Upload
			created, expires int64
		)
		if err := rows.Scan(&u.SHA256, &u.URI, &u.ContentType, &u.Size, &created, &expires); err != nil {
			return err
		}
		u.CreatedAt, u.ExpiresAt = fromMS(created), fromMS(expires)
		uploads = append(uploads, u)
		return nil
	}, `SELECT sha256, uri, content_type, size, created_at, expires_at FROM old_machine_uploads WHERE machine = ?`, s.machine)
	if err != nil {
		return err
	}
	if len(downloads)+len(versions)+len(uploads) == 0 {
		return nil
	}
	mirrored := map[string]bool{}
	for _, d := range downloads {
		if !mirrored[d.taskID] {
			mirrored[d.taskID] = true
			if err := s.mirrorTask(ctx, d.taskID); err != nil && !errors.Is(err, record.ErrNotFound) {
				return err
			}
		}
	}
	for _, v := range versions {
		if err := s.mirrorJob(ctx, v.job); err != nil {
			return err
		}
	}
	err = s.local.write(ctx, func(tx *dbTx) error {
		for _, d := range downloads {
			if _, err := tx.ExecContext(ctx, `INSERT INTO downloads (task, idx, kind, path, status, bytes, total, error,
					created_at, updated_at, owner, lease_until)
				SELECT c.task, c.idx, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM creations c JOIN tasks t ON t.id = c.task
				WHERE t.task_id = ? AND c.idx = ? ON CONFLICT (task, idx, kind) DO NOTHING`,
				d.kind, d.path, d.status, d.bytes, d.total, d.error, d.created, d.updated, d.owner, d.lease, d.taskID, d.idx); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		for _, v := range versions {
			if _, err := tx.ExecContext(ctx, `INSERT INTO version_downloads (sub_job, job, path, status, bytes, error, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sub_job) DO NOTHING`,
				v.subJob, v.job, v.path, v.status, v.bytes, v.error, v.updated); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		for _, u := range uploads {
			if _, err := tx.ExecContext(ctx, `INSERT INTO uploads (sha256, uri, content_type, size, created_at, expires_at)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
				u.SHA256, u.URI, u.ContentType, u.Size, ms(u.CreatedAt), ms(u.ExpiresAt)); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *dbTx) error {
		for _, table := range []string{"old_machine_downloads", "old_machine_version_downloads", "old_machine_uploads"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE machine = ?`, s.machine); err != nil {
				return fmt.Errorf("history: %w", err)
			}
		}
		return nil
	})
}

// each runs query on the team's database and hands each row to scan.
func (s *Store) each(ctx context.Context, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// mirrorJob records the multi-scene job jobID in the machine file, so that
// the files of its versions can be kept there.
func (s *Store) mirrorJob(ctx context.Context, jobID string) error {
	return s.local.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, fetched_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
			jobID, ms(s.now())); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// sharedURLs gives downloads read from the machine file the URLs and expiry
// times their creations have now in the team's database, which renews
// them. A download whose task the team's history no longer holds (or holds
// under another task id: a database made anew) is left out: there is
// nothing left to fetch it from, and its row is another task's.
func (s *Store) sharedURLs(ctx context.Context, ds []record.Download) ([]record.Download, error) {
	if len(ds) == 0 {
		return ds, nil
	}
	var ids []any
	seen := map[int64]bool{}
	for _, d := range ds {
		if !seen[d.LocalID] {
			seen[d.LocalID] = true
			ids = append(ids, d.LocalID)
		}
	}
	rows, err := s.r.QueryContext(ctx, `SELECT c.task, c.idx, t.task_id, c.url, c.url_expires_at, c.cover_url, c.cover_expires_at,
		c.watermarked_url, c.watermarked_expires_at
		FROM creations c JOIN tasks t ON t.id = c.task
		WHERE c.task IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, ids...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	type key struct {
		task int64
		idx  int
	}
	type urls struct {
		taskID  string
		url     map[record.URLKind]string
		expires map[record.URLKind]sql.NullInt64
	}
	shared := map[key]urls{}
	for rows.Next() {
		var (
			k                          key
			taskID, url, cover, wm     string
			urlExp, coverExp, wmExpire sql.NullInt64
		)
		if err := rows.Scan(&k.task, &k.idx, &taskID, &url, &urlExp, &cover, &coverExp, &wm, &wmExpire); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		shared[k] = urls{taskID: taskID,
			url:     map[record.URLKind]string{record.KindURL: url, record.KindCover: cover, record.KindWatermarked: wm},
			expires: map[record.URLKind]sql.NullInt64{record.KindURL: urlExp, record.KindCover: coverExp, record.KindWatermarked: wmExpire}}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	out := ds[:0]
	for _, d := range ds {
		u, ok := shared[key{d.LocalID, d.Index}]
		if !ok || u.taskID != d.TaskID {
			continue
		}
		d.URL, d.ExpiresAt = u.url[d.Kind], fromNullMS(u.expires[d.Kind])
		out = append(out, d)
	}
	return out, nil
}

// sharedURL is sharedURLs of one download just claimed in the machine
// file: a task the team's history no longer holds is ErrNotFound.
func (s *Store) sharedURL(ctx context.Context) func(record.Download, error) (record.Download, error) {
	return func(d record.Download, err error) (record.Download, error) {
		if err != nil {
			return d, err
		}
		ds, err := s.sharedURLs(ctx, []record.Download{d})
		if err != nil {
			return record.Download{}, err
		}
		if len(ds) == 0 {
			return record.Download{}, fmt.Errorf("%w: task %q is no longer in the team's history", record.ErrNotFound, d.TaskID)
		}
		return ds[0], nil
	}
}

// byExpiry orders pending downloads as PendingDownloads promises: the URL
// that expires first first, those of no known expiry last.
func byExpiry(a, b record.Download) int {
	switch {
	case a.ExpiresAt.IsZero() != b.ExpiresAt.IsZero():
		if a.ExpiresAt.IsZero() {
			return 1
		}
		return -1
	case !a.ExpiresAt.Equal(b.ExpiresAt):
		return a.ExpiresAt.Compare(b.ExpiresAt)
	}
	return cmp.Compare(a.ID, b.ID)
}

// recordSavedCopy tells the team that this machine saved a result of the
// task of download id (of the machine file).
func (s *Store) recordSavedCopy(ctx context.Context, id int64) error {
	var (
		task   int64
		taskID string
	)
	if err := s.local.r.QueryRowContext(ctx, `SELECT t.id, t.task_id FROM downloads d JOIN tasks t ON t.id = d.task
		WHERE d.id = ?`, id).Scan(&task, &taskID); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return s.savedCopy(ctx, task, taskID)
}

// savedCopy tells the team that this machine saved a result of task
// taskID of id task, when the team's database holds it under that id (a
// database made anew gives ids again).
func (s *Store) savedCopy(ctx context.Context, task int64, taskID string) error {
	now := ms(s.now())
	return s.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO saved_copies (task, machine, saved_at)
			SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM tasks WHERE id = ?1 AND task_id = ?4)
			ON CONFLICT (task, machine) DO UPDATE SET saved_at = excluded.saved_at`, task, s.machine, now, taskID); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// savedElsewhere names the other machines that saved a result of the task
// (a history file is one machine's: none).
func (s *Store) savedElsewhere(ctx context.Context, tx *dbTx, localID int64) ([]string, error) {
	if s.local == nil {
		return nil, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT machine FROM saved_copies
		WHERE task = ? AND machine != ? ORDER BY machine`, localID, s.machine)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// UnsavedSuccesses are the tasks sent by sentBy that succeeded, with a
// result URL still valid at now, whose end no copy of this machine saw:
// they ended while none followed them (a teammate's poller read their
// end), oldest first. What a copy saw end is its own: saved, queued, failed
// or left unsaved by choice (LeaveUnsaved), it is in the machine file; one
// saved there whose report to the team failed is reported now. A history
// file is one machine's: the tasks it sends it sees end, and saves then or
// never by choice. None.
func (s *Store) UnsavedSuccesses(ctx context.Context, sentBy string, now time.Time) ([]string, error) {
	if s.local == nil {
		return nil, nil
	}
	// A result URL lasts a day from the read that handed it out, and the
	// read that sees an end is within minutes of it; an off-peak task ends
	// up to two days after it was sent: three days of tasks hold every one
	// still valid, on the index of who sent them.
	rows, err := s.r.QueryContext(ctx, `SELECT t.id, t.task_id FROM tasks t
		WHERE t.sent_by = ?1 AND t.created_at > ?2 AND t.state = ?3 AND t.task_id IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM saved_copies c WHERE c.task = t.id AND c.machine = ?4)
			AND EXISTS (SELECT 1 FROM creations c WHERE c.task = t.id AND c.url != ''
				AND (c.url_expires_at IS NULL OR c.url_expires_at > ?5))
		ORDER BY t.created_at, t.id`, sentBy, ms(now.Add(-72*time.Hour)), api.StateSuccess, s.machine, ms(now))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	type candidate struct {
		id     int64
		taskID string
	}
	var found []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.taskID); err != nil {
			rows.Close()
			return nil, fmt.Errorf("history: %w", err)
		}
		found = append(found, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var out []string
	for _, c := range found {
		var seen, saved bool
		err := s.local.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tasks WHERE id = ?1 AND task_id = ?2),
			EXISTS (SELECT 1 FROM downloads d JOIN tasks t ON t.id = d.task WHERE t.id = ?1 AND t.task_id = ?2 AND d.status = ?3)`,
			c.id, c.taskID, record.DownloadDone).Scan(&seen, &saved)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		switch {
		case saved:
			if err := s.savedCopy(ctx, c.id, c.taskID); err != nil {
				return nil, err
			}
		case !seen:
			out = append(out, c.taskID)
		}
	}
	return out, nil
}

// LeaveUnsaved records that a copy of this machine saw task taskID, sent
// from it, succeed and left its results unsaved by choice (auto-download
// off, --no-download): UnsavedSuccesses does not save them on the next
// start. A history file's copies see their tasks end: nothing to record.
func (s *Store) LeaveUnsaved(ctx context.Context, taskID string) error {
	if s.local == nil {
		return nil
	}
	return s.mirrorTask(ctx, taskID)
}
