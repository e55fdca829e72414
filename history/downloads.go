package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// QueueDownload queues the URL of one kind of creation index of a task, to
// be written to path. Queueing it again re-queues a failed or expired one
// from zero under the same id; a running one is left to its downloader and a
// done one to its file, so two processes that both see a task succeed save
// its results once.
func (s *Store) QueueDownload(ctx context.Context, taskID string, index int, kind record.URLKind, path string) (int64, error) {
	if s.local != nil {
		if err := s.mirrorTask(ctx, taskID); err != nil {
			return 0, err
		}
		return s.local.QueueDownload(ctx, taskID, index, kind, path)
	}
	col, ok := urlColumns[kind]
	if !ok {
		return 0, fmt.Errorf("history: unknown URL kind %q", kind)
	}
	now := ms(s.now())
	var id int64
	err := s.write(ctx, func(tx *dbTx) error {
		var (
			localID int64
			url     string
		)
		err := tx.QueryRowContext(ctx, `SELECT c.task, c.`+col+` FROM creations c
			JOIN tasks t ON t.id = c.task WHERE t.task_id = ? AND c.idx = ?`, taskID, index).Scan(&localID, &url)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && url == "") {
			return fmt.Errorf("%w: task %q has no %s for creation %d", record.ErrNotFound, taskID, kind, index)
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO downloads (task, idx, kind, path, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (task, idx, kind) DO UPDATE SET path = excluded.path, status = excluded.status,
				bytes = 0, total = 0, error = '', updated_at = excluded.updated_at
			WHERE downloads.status NOT IN ('running', 'done')`, localID, index, kind, path, record.DownloadQueued, now, now); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return tx.QueryRowContext(ctx, `SELECT id FROM downloads WHERE task = ? AND idx = ? AND kind = ?`,
			localID, index, kind).Scan(&id)
	})
	return id, err
}

var urlColumns = map[record.URLKind]string{
	record.KindURL:         "url",
	record.KindCover:       "cover_url",
	record.KindWatermarked: "watermarked_url",
}

// UpdateDownload records progress or the outcome of download id. Any status
// but running releases the claim.
func (s *Store) UpdateDownload(ctx context.Context, id int64, p record.DownloadProgress) error {
	if s.local != nil {
		if err := s.local.UpdateDownload(ctx, id, p); err != nil || p.Status != record.DownloadDone {
			return err
		}
		return s.recordSavedCopy(ctx, id)
	}
	now := ms(s.now())
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE downloads SET status = ?1, path = coalesce(nullif(?2, ''), path),
			bytes = ?3, total = ?4, error = ?5, updated_at = ?6,
			owner = CASE WHEN ?1 = 'running' THEN owner ELSE '' END,
			lease_until = CASE WHEN ?1 = 'running' THEN lease_until END
			WHERE id = ?7 AND (?8 = '' OR owner = ?8)`,
			p.Status, p.Path, p.Bytes, p.Total, p.Error, now, id, p.Owner)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return claimOutcome(ctx, tx, res, id)
	})
}

// ClaimDownload makes owner the one downloader of download id for lease; the
// owner keeps it with RenewDownload. Only a queued or running download that
// nobody holds, or whose holder let the lease lapse, can be claimed: anything
// else is ErrConflict. The claim is a single UPDATE under the database's write
// lock, so of any number of processes claiming at once exactly one wins. The
// download is returned as claimed, now running.
func (s *Store) ClaimDownload(ctx context.Context, id int64, owner string, lease time.Duration) (record.Download, error) {
	if s.local != nil {
		return s.sharedURL(ctx)(s.local.ClaimDownload(ctx, id, owner, lease))
	}
	now := ms(s.now())
	return s.claim(ctx, id, owner, lease, `owner = '' OR lease_until IS NULL OR lease_until <= ?`, now)
}

// TakeOverDownload claims download id from gone, a holder the caller knows
// is dead (a process of this machine that no longer runs), without waiting
// for its lease to lapse. It is ErrConflict when gone no longer holds it, so
// of two processes taking over at once one wins.
func (s *Store) TakeOverDownload(ctx context.Context, id int64, gone, owner string, lease time.Duration) (record.Download, error) {
	if gone == "" {
		return record.Download{}, errors.New("history: a takeover needs the holder it replaces")
	}
	if s.local != nil {
		return s.sharedURL(ctx)(s.local.TakeOverDownload(ctx, id, gone, owner, lease))
	}
	return s.claim(ctx, id, owner, lease, `owner = ?`, gone)
}

func (s *Store) claim(ctx context.Context, id int64, owner string, lease time.Duration, holder string, args ...any) (record.Download, error) {
	if owner == "" {
		return record.Download{}, errors.New("history: a download claim needs an owner")
	}
	now := s.now()
	var d record.Download
	err := s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE downloads SET status = 'running', owner = ?, lease_until = ?, error = '', updated_at = ?
			WHERE id = ? AND status IN ('queued', 'running') AND (`+holder+`)`,
			append([]any{owner, ms(now.Add(lease)), ms(now), id}, args...)...)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if err := claimOutcome(ctx, tx, res, id); err != nil {
			return err
		}
		got, err := collectDownloads(tx.QueryContext(ctx, `SELECT `+downloadCols+` WHERE d.id = ?`, id))
		if err != nil {
			return err
		}
		if len(got) != 1 {
			return fmt.Errorf("%w: download %d", record.ErrNotFound, id)
		}
		d = got[0]
		return nil
	})
	return d, err
}

// RenewDownload extends owner's claim on download id to lease from now;
// ErrConflict when owner no longer holds it (its lease lapsed and another
// downloader took it over, or it was settled).
func (s *Store) RenewDownload(ctx context.Context, id int64, owner string, lease time.Duration) error {
	if s.local != nil {
		return s.local.RenewDownload(ctx, id, owner, lease)
	}
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE downloads SET lease_until = ?
			WHERE id = ? AND owner = ? AND owner != '' AND status = 'running'`, ms(now.Add(lease)), id, owner)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return claimOutcome(ctx, tx, res, id)
	})
}

// claimOutcome turns an UPDATE of download id that matched no row into
// ErrNotFound or, when the row exists, ErrConflict.
func claimOutcome(ctx context.Context, tx *dbTx, res sql.Result, id int64) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if n > 0 {
		return nil
	}
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM downloads WHERE id = ?)`, id).Scan(&exists); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if !exists {
		return fmt.Errorf("%w: download %d", record.ErrNotFound, id)
	}
	return fmt.Errorf("%w: download %d is held by another downloader or settled", record.ErrConflict, id)
}

const downloadCols = `d.id, d.task, coalesce(t.task_id, ''), t.operation, d.idx, d.kind,
	CASE d.kind WHEN 'url' THEN c.url WHEN 'cover' THEN c.cover_url ELSE c.watermarked_url END,
	CASE d.kind WHEN 'url' THEN c.url_expires_at WHEN 'cover' THEN c.cover_expires_at ELSE c.watermarked_expires_at END AS expires_at,
	d.path, d.bytes, d.total, d.status, d.error, d.created_at, d.updated_at, d.owner, d.lease_until
	FROM downloads d
	JOIN creations c ON c.task = d.task AND c.idx = d.idx
	JOIN tasks t ON t.id = d.task`

// Downloads are the downloads of one task, by creation index and kind.
func (s *Store) Downloads(ctx context.Context, taskID string) ([]record.Download, error) {
	if s.local != nil {
		ds, err := s.local.Downloads(ctx, taskID)
		if err != nil {
			return nil, err
		}
		return s.sharedURLs(ctx, ds)
	}
	return collectDownloads(s.r.QueryContext(ctx, `SELECT `+downloadCols+`
		WHERE t.task_id = ? ORDER BY d.idx, d.kind`, taskID))
}

// PendingDownloads are the queued and the running downloads (held by a live
// downloader or left by one that died: see Owner and LeaseUntil), the URL
// that expires first first.
func (s *Store) PendingDownloads(ctx context.Context) ([]record.Download, error) {
	if s.local != nil {
		ds, err := s.local.PendingDownloads(ctx)
		if err == nil {
			ds, err = s.sharedURLs(ctx, ds)
		}
		slices.SortFunc(ds, byExpiry)
		return ds, err
	}
	return collectDownloads(s.r.QueryContext(ctx, `SELECT `+downloadCols+`
		WHERE d.status IN (?, ?) ORDER BY expires_at NULLS LAST, d.id`,
		record.DownloadQueued, record.DownloadRunning))
}

func collectDownloads(rows *sql.Rows, err error) ([]record.Download, error) {
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.Download
	for rows.Next() {
		var (
			d                record.Download
			expires, lease   sql.NullInt64
			created, updated int64
		)
		if err := rows.Scan(&d.ID, &d.LocalID, &d.TaskID, &d.Operation, &d.Index, &d.Kind,
			&d.URL, &expires, &d.Path, &d.Bytes, &d.Total, &d.Status, &d.Error, &created, &updated, &d.Owner, &lease); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		d.ExpiresAt, d.CreatedAt, d.UpdatedAt = fromNullMS(expires), fromMS(created), fromMS(updated)
		d.LeaseUntil = fromNullMS(lease)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// SavedFile reports whether path is a file a download of this history
// saved (a task's result or a version's video): the opener trusts such a
// file wherever the user had it saved.
func (s *Store) SavedFile(ctx context.Context, path string) (bool, error) {
	if s.local != nil {
		return s.local.SavedFile(ctx, path)
	}
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM downloads WHERE status = ? AND path = ?) +
		(SELECT count(*) FROM version_downloads WHERE status = ? AND path = ?)`,
		record.DownloadDone, path, record.DownloadDone, path).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	return n > 0, nil
}
