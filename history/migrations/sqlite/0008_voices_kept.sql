-- 0008: a cloned voice used in time is kept for good.
--
-- The service deletes a cloned voice 168 h after its cloning unless speech
-- synthesis used it within those 168 h; a voice used in time is kept and no
-- longer counts down. Until now each use restarted a 168 h clock
-- (expires_at = last use + 168 h). From here expires_at is always
-- created_at + 168 h, the deadline for a first use, and kept says the
-- deadline was met.
--
-- Every use recorded so far was a synthesis the service accepted, so the
-- service still had the voice then; a voice it had not deleted by its first
-- 168 h was used within them. So every voice with a recorded use is kept.
ALTER TABLE voices ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
UPDATE voices SET kept = 1 WHERE last_used_at IS NOT NULL;
UPDATE voices SET expires_at = created_at + 604800000;

-- Only voices still counting down have an expiry worth finding.
DROP INDEX voices_expiry;
CREATE INDEX voices_expiry ON voices (expires_at) WHERE deleted = 0 AND kept = 0;
