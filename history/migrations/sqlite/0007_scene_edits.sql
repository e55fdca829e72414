-- 0007: what the scene editor adds to a multi-scene job's record.
--
-- scene_choices holds the version of each scene the user chose for the next
-- composition; a scene without a row takes its newest successful version.
-- version_downloads holds the files saved of scene versions and of
-- compositions after the first (the first is the task's own result, saved
-- through downloads like any task's). Both go with their job.
CREATE TABLE scene_choices (
    job       TEXT    NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    idx       INTEGER NOT NULL,
    sub_job   TEXT    NOT NULL,
    chosen_at INTEGER NOT NULL,
    PRIMARY KEY (job, idx)
) WITHOUT ROWID;

CREATE TABLE version_downloads (
    sub_job    TEXT PRIMARY KEY,
    job        TEXT    NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    path       TEXT    NOT NULL,
    status     TEXT    NOT NULL CHECK (status IN ('running', 'done', 'failed')),
    bytes      INTEGER NOT NULL DEFAULT 0,
    error      TEXT    NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL
);
CREATE INDEX version_downloads_job ON version_downloads (job);
