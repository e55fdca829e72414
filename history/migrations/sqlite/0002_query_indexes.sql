-- 0002: indexes for the queries the UI and the tracker run.
--
-- Each task index ends in created_at so that a filter on its leading column
-- still walks rows newest first and a page stops after 50 rows instead of
-- sorting every match; the rowid (local id) is the implicit tiebreaker.
CREATE INDEX tasks_created ON tasks (created_at);
CREATE INDEX tasks_state ON tasks (state, created_at);
CREATE INDEX tasks_operation ON tasks (operation, created_at);
CREATE INDEX tasks_model ON tasks (model, created_at);

-- Children by parent, for the detail view and for ON DELETE CASCADE.
CREATE INDEX task_events_task ON task_events (task, id);
CREATE INDEX sub_jobs_job ON sub_jobs (job, record_type, record_idx, seq);

-- The downloader's queue and the voice reminder.
CREATE INDEX downloads_status ON downloads (status);
CREATE INDEX voices_expiry ON voices (expires_at) WHERE deleted = 0;
