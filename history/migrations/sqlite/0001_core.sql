-- 0001: the core tables.
--
-- Every time is INTEGER unix milliseconds UTC. Local ids are INTEGER PRIMARY
-- KEY (the rowid), so every secondary index carries them for free: the
-- keyset cursor (created_at, id) is satisfied by an index on created_at alone.

-- One row per creation request, from the moment the user pressed submit.
-- task_id stays NULL until the service answered; state holds the local
-- states submitting/rejected/abandoned before it holds the service's.
CREATE TABLE tasks (
    id                 INTEGER PRIMARY KEY,
    task_id            TEXT UNIQUE,
    operation          TEXT    NOT NULL,
    model              TEXT    NOT NULL DEFAULT '',
    prompt             TEXT    NOT NULL DEFAULT '',
    state              TEXT    NOT NULL,
    err_code           TEXT    NOT NULL DEFAULT '',
    credits            INTEGER NOT NULL DEFAULT 0,
    request            TEXT    NOT NULL,          -- JSON, data URIs replaced by placeholders
    echo               TEXT,                      -- creation answer as received
    result             TEXT,                      -- latest task result as received
    payload            TEXT    NOT NULL DEFAULT '',
    off_peak           INTEGER NOT NULL DEFAULT 0,
    off_peak_deadline  INTEGER,
    service_created_at INTEGER,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    reject_status      INTEGER,
    reject_reason      TEXT,
    reject_message     TEXT,
    reject_trace_id    TEXT,
    reject_fields      TEXT,                      -- JSON array
    reject_retryable   INTEGER
);

-- The exact body that was (or will be) POSTed, data URIs included: needed to
-- resubmit after a rejection. Kept apart so that list queries over tasks never
-- page through megabytes of base64; deleted once the service assigned an id.
CREATE TABLE pending_bodies (
    task INTEGER PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
    body BLOB    NOT NULL
);

-- What each stripped data URI was, so a task can be matched to local files.
CREATE TABLE media_refs (
    task         INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    path         TEXT    NOT NULL,
    content_type TEXT    NOT NULL,
    sha256       TEXT    NOT NULL,
    bytes        INTEGER NOT NULL,
    PRIMARY KEY (task, path)
) WITHOUT ROWID;

CREATE TABLE task_events (
    id         INTEGER PRIMARY KEY,
    task       INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    from_state TEXT    NOT NULL,
    to_state   TEXT    NOT NULL,
    at         INTEGER NOT NULL,
    raw        TEXT
);

CREATE TABLE creations (
    task                   INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    idx                    INTEGER NOT NULL,
    creation_id            TEXT    NOT NULL DEFAULT '',
    url                    TEXT    NOT NULL DEFAULT '',
    url_expires_at         INTEGER,
    cover_url              TEXT    NOT NULL DEFAULT '',
    cover_expires_at       INTEGER,
    watermarked_url        TEXT    NOT NULL DEFAULT '',
    watermarked_expires_at INTEGER,
    updated_at             INTEGER NOT NULL,
    PRIMARY KEY (task, idx)
);

CREATE TABLE downloads (
    id         INTEGER PRIMARY KEY,
    task       INTEGER NOT NULL,
    idx        INTEGER NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('url', 'cover', 'watermarked')),
    path       TEXT    NOT NULL,
    bytes      INTEGER NOT NULL DEFAULT 0,
    total      INTEGER NOT NULL DEFAULT 0,
    status     TEXT    NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'expired')),
    error      TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (task, idx, kind),
    FOREIGN KEY (task, idx) REFERENCES creations (task, idx) ON DELETE CASCADE
);

-- Cloned voices. The service deletes a voice 168 h after cloning unless it is
-- used in speech synthesis; each use moves the deadline to use + 168 h.
CREATE TABLE voices (
    voice_id      TEXT PRIMARY KEY,
    clone_task_id TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER,
    demo_audio    TEXT    NOT NULL DEFAULT '',
    expires_at    INTEGER NOT NULL,
    deleted       INTEGER NOT NULL DEFAULT 0
);

-- Multi-scene jobs. jobs.id is the task_id of the general_one_click task.
CREATE TABLE jobs (
    id         TEXT PRIMARY KEY,
    type       TEXT    NOT NULL DEFAULT '',
    creator_id TEXT    NOT NULL DEFAULT '',
    state      TEXT    NOT NULL DEFAULT '',
    input      TEXT    NOT NULL DEFAULT '',
    err_code   TEXT    NOT NULL DEFAULT '',
    err_msg    TEXT    NOT NULL DEFAULT '',
    signed_url TEXT    NOT NULL DEFAULT '',
    created_at INTEGER,
    updated_at INTEGER,
    fetched_at INTEGER NOT NULL,
    raw        TEXT
);

-- A scene (generate_video) or the composition (compose) of a job.
CREATE TABLE job_records (
    job  TEXT    NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    type TEXT    NOT NULL,
    idx  INTEGER NOT NULL,
    PRIMARY KEY (job, type, idx)
) WITHOUT ROWID;

-- One version of a scene or of the composition; seq orders the edit history.
CREATE TABLE sub_jobs (
    id          TEXT PRIMARY KEY,
    job         TEXT    NOT NULL,
    record_type TEXT    NOT NULL,
    record_idx  INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    idx         INTEGER NOT NULL DEFAULT 0,
    type        TEXT    NOT NULL DEFAULT '',
    state       TEXT    NOT NULL DEFAULT '',
    prompt      TEXT    NOT NULL DEFAULT '',
    lyric_text  TEXT    NOT NULL DEFAULT '',
    duration    INTEGER NOT NULL DEFAULT 0,
    images      TEXT    NOT NULL DEFAULT '[]',
    input       TEXT    NOT NULL DEFAULT '',
    output      TEXT    NOT NULL DEFAULT '',
    err_code    TEXT    NOT NULL DEFAULT '',
    err_msg     TEXT    NOT NULL DEFAULT '',
    signed_url  TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER,
    updated_at  INTEGER,
    fetched_at  INTEGER NOT NULL,
    FOREIGN KEY (job, record_type, record_idx) REFERENCES job_records (job, type, idx) ON DELETE CASCADE
);
