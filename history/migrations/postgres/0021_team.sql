-- 0021 on PostgreSQL: what a team's shared history needs (as SQLite's 0021).
--
-- Every task knows the account it was sent on (a profile name or a hash of
-- the key, never the key) and who sent it (user@machine); a voice, who used
-- it last. What belongs to one machine is kept apart by its name: its saved
-- files and their leases, its scene versions' files, its upload cache. The
-- poller's lease is one per account, timed by this server's clock.
ALTER TABLE tasks ADD COLUMN account TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN sent_by TEXT NOT NULL DEFAULT '';
CREATE INDEX tasks_sent_by ON tasks (sent_by, created_at);
ALTER TABLE voices ADD COLUMN last_used_by TEXT NOT NULL DEFAULT '';

ALTER TABLE downloads ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE downloads DROP CONSTRAINT downloads_task_idx_kind_key;
ALTER TABLE downloads ADD CONSTRAINT downloads_machine_task_idx_kind_key UNIQUE (machine, task, idx, kind);

ALTER TABLE version_downloads ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE version_downloads DROP CONSTRAINT version_downloads_pkey;
ALTER TABLE version_downloads ADD PRIMARY KEY (machine, sub_job);

ALTER TABLE uploads ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE uploads DROP CONSTRAINT uploads_pkey;
ALTER TABLE uploads ADD PRIMARY KEY (machine, sha256);

-- Every commit that changes what a screen shows notifies the other
-- processes, with the writing store's id (history/notify.go): a wake-up to
-- re-read from their cursors. The poller's lease is not among them (its
-- renewals would wake everyone every few seconds); its release notifies on
-- its own channel.
CREATE FUNCTION clapper_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('clapper_changes', coalesce(current_setting('clapper.writer', true), ''));
    RETURN NULL;
END $$;
DO $$
DECLARE
    t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['tasks', 'creations', 'downloads', 'task_tags', 'voices', 'jobs', 'sub_jobs',
        'scene_choices', 'subjects', 'task_sets', 'task_set_lines', 'prompt_stars', 'not_found', 'intent_senders',
        'task_parents', 'version_downloads'] LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I
            FOR EACH ROW EXECUTE FUNCTION clapper_notify_change()', t || '_notify', t);
    END LOOP;
END $$;

DROP TABLE poller;
CREATE TABLE poller (
    account     TEXT   PRIMARY KEY,
    owner       TEXT   NOT NULL,
    lease_until BIGINT NOT NULL
);
