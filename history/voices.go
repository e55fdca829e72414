package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// VoiceRetention is how long the service keeps a cloned voice after its
// cloning or its last use in speech synthesis.
const VoiceRetention = 168 * time.Hour

// Voice is a cloned voice.
type Voice struct {
	VoiceID     string
	CloneTaskID string // the audio-clone task that made it
	CreatedAt   time.Time
	LastUsedAt  time.Time // last speech synthesis; zero if never used
	DemoAudio   string    // preview URL, empty when no preview text was sent
	ExpiresAt   time.Time // set by the store: (last use, else creation) + 168 h
	Deleted     bool
}

// Expired reports whether the service has deleted the voice by now.
func (v Voice) Expired(now time.Time) bool { return !now.Before(v.ExpiresAt) }

// RecordVoice records a voice that audio-clone made. A voice id can be
// recorded again only once its earlier voice is deleted or expired, as the
// service frees the id then; otherwise the error wraps ErrConflict.
func (s *Store) RecordVoice(ctx context.Context, v Voice) error {
	if v.VoiceID == "" {
		return fmt.Errorf("history: RecordVoice needs a voice id")
	}
	if v.CreatedAt.IsZero() {
		v.CreatedAt = s.now()
	}
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		var (
			expires int64
			deleted bool
		)
		err := tx.QueryRowContext(ctx, `SELECT expires_at, deleted FROM voices WHERE voice_id = ?`, v.VoiceID).
			Scan(&expires, &deleted)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("history: %w", err)
		case !deleted && now.Before(fromMS(expires)):
			return fmt.Errorf("%w: voice %q is already recorded", ErrConflict, v.VoiceID)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO voices
			(voice_id, clone_task_id, created_at, last_used_at, demo_audio, expires_at, deleted)
			VALUES (?, ?, ?, NULL, ?, ?, 0)`, v.VoiceID, v.CloneTaskID, ms(v.CreatedAt), v.DemoAudio,
			ms(v.CreatedAt.Add(VoiceRetention))); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// TouchVoice records a use of the voice in speech synthesis at at, which
// moves its expiry to at + 168 h; a use older than the recorded one does not
// move it back. The service accepted the voice, so it is not deleted.
func (s *Store) TouchVoice(ctx context.Context, voiceID string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE voices SET
				last_used_at = max(coalesce(last_used_at, 0), ?1),
				expires_at = max(coalesce(last_used_at, 0), ?1, created_at) + ?2,
				deleted = 0
			WHERE voice_id = ?3`, ms(at), VoiceRetention.Milliseconds(), voiceID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("%w: voice %q", ErrNotFound, voiceID)
		}
		return nil
	})
}

// DeleteVoice marks the voice deleted (the service no longer has it, or the
// user removed it); the row stays as history.
func (s *Store) DeleteVoice(ctx context.Context, voiceID string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE voices SET deleted = 1 WHERE voice_id = ?`, voiceID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("%w: voice %q", ErrNotFound, voiceID)
		}
		return nil
	})
}

const voiceCols = `voice_id, clone_task_id, created_at, last_used_at, demo_audio, expires_at, deleted FROM voices`

// Voices are all recorded voices, deleted ones included, soonest expiry first.
func (s *Store) Voices(ctx context.Context) ([]Voice, error) {
	return collectVoices(s.r.QueryContext(ctx, `SELECT `+voiceCols+` ORDER BY expires_at, voice_id`))
}

// VoicesExpiringWithin are the voices not deleted whose expiry falls in
// (now, now+window]: still usable, but not for longer than window. A use in
// speech synthesis takes a voice off the list.
func (s *Store) VoicesExpiringWithin(ctx context.Context, now time.Time, window time.Duration) ([]Voice, error) {
	return collectVoices(s.r.QueryContext(ctx, `SELECT `+voiceCols+`
		WHERE deleted = 0 AND expires_at > ? AND expires_at <= ? ORDER BY expires_at, voice_id`,
		ms(now), ms(now.Add(window))))
}

func collectVoices(rows *sql.Rows, err error) ([]Voice, error) {
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []Voice
	for rows.Next() {
		var (
			v                Voice
			created, expires int64
			used             sql.NullInt64
		)
		if err := rows.Scan(&v.VoiceID, &v.CloneTaskID, &created, &used, &v.DemoAudio, &expires, &v.Deleted); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		v.CreatedAt, v.LastUsedAt, v.ExpiresAt = fromMS(created), fromNullMS(used), fromMS(expires)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}
