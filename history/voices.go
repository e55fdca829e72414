package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"clapper/api"
	"clapper/record"
)

// RecordVoice records a voice that audio-clone made. A voice id can be
// recorded again only once its earlier voice is deleted or expired, as the
// service frees the id then; otherwise the error wraps ErrConflict.
func (s *Store) RecordVoice(ctx context.Context, v record.Voice) error {
	if v.VoiceID == "" {
		return fmt.Errorf("history: RecordVoice needs a voice id")
	}
	if v.CreatedAt.IsZero() {
		v.CreatedAt = s.now()
	}
	now := s.now()
	return s.write(ctx, func(tx *dbTx) error {
		var (
			expires       int64
			kept, deleted bool
		)
		err := tx.QueryRowContext(ctx, `SELECT expires_at, kept, deleted FROM voices WHERE voice_id = ?`, v.VoiceID).
			Scan(&expires, &kept, &deleted)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("history: %w", err)
		case !deleted && (kept || now.Before(fromMS(expires))):
			return fmt.Errorf("%w: voice %q is already recorded", record.ErrConflict, v.VoiceID)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO voices
			(voice_id, clone_task_id, created_at, last_used_at, demo_audio, expires_at, kept, deleted)
			VALUES (?, ?, ?, NULL, ?, ?, 0, 0) ON CONFLICT (voice_id) DO UPDATE SET
			clone_task_id = excluded.clone_task_id, created_at = excluded.created_at, last_used_at = NULL,
			demo_audio = excluded.demo_audio, expires_at = excluded.expires_at, kept = 0, deleted = 0`, v.VoiceID, v.CloneTaskID, ms(v.CreatedAt), v.DemoAudio,
			ms(v.CreatedAt.Add(record.VoiceRetention))); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		return nil
	})
}

// RecordVoiceUse records what the successful audio-tts task taskID means
// for the voice its request named: a use at the task's creation (the
// service's time, else the request's). A use before the voice's expiry keeps
// it for good (and undoes a local Deleted: the service had it); a later use
// is noted as the last use but saves nothing. It reports ErrNotFound, and
// records nothing, unless history holds taskID as a successful audio-tts
// whose voice was cloned here (a system voice is not tracked).
func (s *Store) RecordVoiceUse(ctx context.Context, taskID string) error {
	return s.write(ctx, func(tx *dbTx) error {
		var (
			voiceID sql.NullString
			at      int64
			by      string
		)
		err := tx.QueryRowContext(ctx, `SELECT
				CASE WHEN json_valid(request) THEN json_extract(request, '$.voice_setting_voice_id') END,
				coalesce(service_created_at, created_at), sent_by
			FROM tasks WHERE task_id = ? AND operation = ? AND state = ?`,
			taskID, api.OpAudioTTS, api.StateSuccess).Scan(&voiceID, &at, &by)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("%w: successful audio-tts task %q", record.ErrNotFound, taskID)
		case err != nil:
			return fmt.Errorf("history: %w", err)
		case voiceID.String == "":
			return fmt.Errorf("%w: a voice in task %q", record.ErrNotFound, taskID)
		}
		// A use from before the voice's cloning belongs to an earlier voice
		// of the same id: it neither keeps nor revives this one.
		res, err := tx.ExecContext(ctx, `UPDATE voices SET
				last_used_by = CASE WHEN ?1 >= coalesce(last_used_at, 0) THEN ?3 ELSE last_used_by END,
				last_used_at = max(coalesce(last_used_at, 0), ?1),
				kept = CASE WHEN kept != 0 OR (?1 >= created_at AND ?1 < expires_at) THEN 1 ELSE 0 END,
				deleted = CASE WHEN ?1 >= created_at AND ?1 < expires_at THEN 0 ELSE deleted END
			WHERE voice_id = ?2`, at, voiceID.String, by)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("%w: voice %q", record.ErrNotFound, voiceID.String)
		}
		return nil
	})
}

// DeleteVoice marks the voice deleted (the service no longer has it, or the
// user removed it); the row stays as history.
func (s *Store) DeleteVoice(ctx context.Context, voiceID string) error {
	return s.write(ctx, func(tx *dbTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE voices SET deleted = 1 WHERE voice_id = ?`, voiceID)
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("%w: voice %q", record.ErrNotFound, voiceID)
		}
		return nil
	})
}

const voiceCols = `voice_id, clone_task_id, created_at, last_used_at, demo_audio, expires_at, kept, deleted, last_used_by FROM voices`

// Voices are all recorded voices, deleted ones included: those counting
// down (or expired) by expiry, soonest first, then the kept ones.
func (s *Store) Voices(ctx context.Context) ([]record.Voice, error) {
	return collectVoices(s.r.QueryContext(ctx, `SELECT `+voiceCols+` ORDER BY kept, expires_at, voice_id`))
}

// VoicesExpiringWithin are the voices Expiring(now, window), soonest first:
// still usable, but deleted within window unless used. Kept voices never
// are.
func (s *Store) VoicesExpiringWithin(ctx context.Context, now time.Time, window time.Duration) ([]record.Voice, error) {
	return collectVoices(s.r.QueryContext(ctx, `SELECT `+voiceCols+`
		WHERE deleted = 0 AND kept = 0 AND expires_at > ? AND expires_at <= ? ORDER BY expires_at, voice_id`,
		ms(now), ms(now.Add(window))))
}

func collectVoices(rows *sql.Rows, err error) ([]record.Voice, error) {
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.Voice
	for rows.Next() {
		var (
			v                record.Voice
			created, expires int64
			used             sql.NullInt64
		)
		if err := rows.Scan(&v.VoiceID, &v.CloneTaskID, &created, &used, &v.DemoAudio, &expires, &v.Kept, &v.Deleted, &v.LastUsedBy); err != nil {
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
