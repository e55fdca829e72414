package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"clapper/api"
)

// URLKind names one of the URLs of a creation.
type URLKind string

const (
	KindURL         URLKind = "url"
	KindCover       URLKind = "cover"
	KindWatermarked URLKind = "watermarked"
)

// DownloadStatus is where a download stands.
type DownloadStatus string

const (
	DownloadQueued  DownloadStatus = "queued"
	DownloadRunning DownloadStatus = "running"
	DownloadDone    DownloadStatus = "done"
	DownloadFailed  DownloadStatus = "failed"
	// DownloadExpired: the signed URL lapsed before the file was fetched.
	DownloadExpired DownloadStatus = "expired"
)

// Download is one file to fetch, with the current URL and expiry of the
// creation it comes from (joined, so a refreshed URL is seen at once).
type Download struct {
	ID        int64
	LocalID   int64
	TaskID    string
	Operation api.Operation
	Index     int
	Kind      URLKind
	URL       string
	ExpiresAt time.Time
	Path      string
	Bytes     int64
	Total     int64 // zero while unknown
	Status    DownloadStatus
	Error     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// QueueDownload queues the URL of one kind of creation index of a task, to
// be written to path. Queueing it again re-queues it from zero unless it is
// running; the id stays the same.
func (s *Store) QueueDownload(ctx context.Context, taskID string, index int, kind URLKind, path string) (int64, error) {
	col, ok := urlColumns[kind]
	if !ok {
		return 0, fmt.Errorf("history: unknown URL kind %q", kind)
	}
	now := ms(s.now())
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var (
			localID int64
			url     string
		)
		err := tx.QueryRowContext(ctx, `SELECT c.task, c.`+col+` FROM creations c
			JOIN tasks t ON t.id = c.task WHERE t.task_id = ? AND c.idx = ?`, taskID, index).Scan(&localID, &url)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && url == "") {
			return fmt.Errorf("%w: task %q has no %s for creation %d", ErrNotFound, taskID, kind, index)
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO downloads (task, idx, kind, path, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (task, idx, kind) DO UPDATE SET path = excluded.path, status = excluded.status,
				bytes = 0, total = 0, error = '', updated_at = excluded.updated_at
			WHERE status != 'running'`, localID, index, kind, path, DownloadQueued, now, now); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return tx.QueryRowContext(ctx, `SELECT id FROM downloads WHERE task = ? AND idx = ? AND kind = ?`,
			localID, index, kind).Scan(&id)
	})
	return id, err
}

var urlColumns = map[URLKind]string{
	KindURL:         "url",
	KindCover:       "cover_url",
	KindWatermarked: "watermarked_url",
}

// DownloadProgress is a report from the downloader.
type DownloadProgress struct {
	Status DownloadStatus
	Path   string // empty keeps the queued path (the final name may differ)
	Bytes  int64
	Total  int64
	Error  string
}

// UpdateDownload records progress or the outcome of download id.
func (s *Store) UpdateDownload(ctx context.Context, id int64, p DownloadProgress) error {
	now := ms(s.now())
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE downloads SET status = ?, path = coalesce(nullif(?, ''), path),
			bytes = ?, total = ?, error = ?, updated_at = ? WHERE id = ?`,
			p.Status, p.Path, p.Bytes, p.Total, p.Error, now, id)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("%w: download %d", ErrNotFound, id)
		}
		return nil
	})
}

const downloadCols = `d.id, d.task, coalesce(t.task_id, ''), t.operation, d.idx, d.kind,
	CASE d.kind WHEN 'url' THEN c.url WHEN 'cover' THEN c.cover_url ELSE c.watermarked_url END,
	CASE d.kind WHEN 'url' THEN c.url_expires_at WHEN 'cover' THEN c.cover_expires_at ELSE c.watermarked_expires_at END AS expires_at,
	d.path, d.bytes, d.total, d.status, d.error, d.created_at, d.updated_at
	FROM downloads d
	JOIN creations c ON c.task = d.task AND c.idx = d.idx
	JOIN tasks t ON t.id = d.task`

// Downloads are the downloads of one task, by creation index and kind.
func (s *Store) Downloads(ctx context.Context, taskID string) ([]Download, error) {
	return collectDownloads(s.r.QueryContext(ctx, `SELECT `+downloadCols+`
		WHERE t.task_id = ? ORDER BY d.idx, d.kind`, taskID))
}

// PendingDownloads are the queued downloads and those a previous run left
// running, the URL that expires first first.
func (s *Store) PendingDownloads(ctx context.Context) ([]Download, error) {
	return collectDownloads(s.r.QueryContext(ctx, `SELECT `+downloadCols+`
		WHERE d.status IN (?, ?) ORDER BY expires_at IS NULL, expires_at, d.id`, DownloadQueued, DownloadRunning))
}

func collectDownloads(rows *sql.Rows, err error) ([]Download, error) {
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []Download
	for rows.Next() {
		var (
			d                Download
			expires          sql.NullInt64
			created, updated int64
		)
		if err := rows.Scan(&d.ID, &d.LocalID, &d.TaskID, &d.Operation, &d.Index, &d.Kind,
			&d.URL, &expires, &d.Path, &d.Bytes, &d.Total, &d.Status, &d.Error, &created, &updated); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		d.ExpiresAt, d.CreatedAt, d.UpdatedAt = fromNullMS(expires), fromMS(created), fromMS(updated)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}
