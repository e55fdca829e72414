package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// RecordUpload keeps an upload's URI under the SHA-256 of its bytes,
// replacing an older one of the same bytes.
func (s *Store) RecordUpload(ctx context.Context, u record.Upload) error {
	if s.local != nil {
		return s.local.RecordUpload(ctx, u)
	}
	return s.write(ctx, func(tx *dbTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO uploads (sha256, uri, content_type, size, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO UPDATE SET uri = excluded.uri,
			content_type = excluded.content_type, size = excluded.size, created_at = excluded.created_at,
			expires_at = excluded.expires_at`, u.SHA256, u.URI, u.ContentType, u.Size, ms(u.CreatedAt), ms(u.ExpiresAt))
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// UploadOf is the upload of these bytes still valid at now; ok is false
// when there is none.
func (s *Store) UploadOf(ctx context.Context, sha string, now time.Time) (u record.Upload, ok bool, err error) {
	if s.local != nil {
		return s.local.UploadOf(ctx, sha, now)
	}
	var created, expires int64
	err = s.r.QueryRowContext(ctx, `SELECT sha256, uri, content_type, size, created_at, expires_at FROM uploads
		WHERE sha256 = ? AND expires_at > ?`, sha, ms(now)).Scan(&u.SHA256, &u.URI, &u.ContentType, &u.Size, &created, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return record.Upload{}, false, nil
	case err != nil:
		return record.Upload{}, false, fmt.Errorf("history: %w", err)
	}
	u.CreatedAt, u.ExpiresAt = fromMS(created), fromMS(expires)
	return u, true, nil
}

// ForgetUpload drops the upload of these bytes: the service refused its URI.
func (s *Store) ForgetUpload(ctx context.Context, sha string) error {
	if s.local != nil {
		return s.local.ForgetUpload(ctx, sha)
	}
	return s.write(ctx, func(tx *dbTx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM uploads WHERE sha256 = ?`, sha); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// RecordSubject keeps a stored subject, replacing what was known of it.
func (s *Store) RecordSubject(ctx context.Context, sb record.Subject) error {
	if sb.ID == "" {
		return fmt.Errorf("history: RecordSubject needs a subject id")
	}
	now := s.now()
	if sb.CreatedAt.IsZero() {
		sb.CreatedAt = now
	}
	images, _ := json.Marshal(nonNil(sb.Images))
	videos, _ := json.Marshal(nonNil(sb.Videos))
	return s.write(ctx, func(tx *dbTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO subjects (subject_id, name, images, videos, voice_id, style, description, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (subject_id) DO UPDATE SET name = excluded.name, images = excluded.images, videos = excluded.videos,
				voice_id = excluded.voice_id, style = excluded.style, description = excluded.description, updated_at = excluded.updated_at`,
			sb.ID, sb.Name, string(images), string(videos), sb.VoiceID, sb.Style, sb.Description, ms(sb.CreatedAt), ms(now))
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// Subjects are the recorded stored subjects by name.
func (s *Store) Subjects(ctx context.Context) ([]record.Subject, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT subject_id, name, images, videos, voice_id, style, description, created_at, updated_at
		FROM subjects ORDER BY name, subject_id`)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.Subject
	for rows.Next() {
		var sb record.Subject
		var images, videos string
		var created, updated int64
		if err := rows.Scan(&sb.ID, &sb.Name, &images, &videos, &sb.VoiceID, &sb.Style, &sb.Description, &created, &updated); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		_ = json.Unmarshal([]byte(images), &sb.Images)
		_ = json.Unmarshal([]byte(videos), &sb.Videos)
		sb.CreatedAt, sb.UpdatedAt = fromMS(created), fromMS(updated)
		out = append(out, sb)
	}
	return out, rows.Err()
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
