-- 0016: what a scene edit was charged when sent, kept on its version, so a
-- version that fails gives it back to its job's task once (the service
-- does not charge a failed edit).
ALTER TABLE sub_jobs ADD COLUMN credits INTEGER NOT NULL DEFAULT 0;
