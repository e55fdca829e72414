-- 0015: sets of tasks sent together: a batch file's lines, or the
-- variations of one request.
--
-- A batch is found again by the SHA-256 of its file (key), so running the
-- same file after a crash sends only the lines never sent. A line is linked
-- to its task row (local_id) in the transaction that records the request
-- before it is POSTed: a line with a task was sent, or may have been, and is
-- never sent again. label is what tells a variation from its siblings
-- (seed=7, duration=8); for a batch line it is empty.
CREATE TABLE task_sets (
    id         INTEGER PRIMARY KEY,
    kind       TEXT    NOT NULL CHECK (kind IN ('batch', 'variations')),
    key        TEXT,
    name       TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX task_sets_key ON task_sets (kind, key) WHERE key IS NOT NULL;

CREATE TABLE task_set_lines (
    set_id    INTEGER NOT NULL REFERENCES task_sets (id) ON DELETE CASCADE,
    line      INTEGER NOT NULL,
    operation TEXT    NOT NULL,
    label     TEXT    NOT NULL DEFAULT '',
    local_id  INTEGER REFERENCES tasks (id) ON DELETE SET NULL,
    PRIMARY KEY (set_id, line)
);
CREATE INDEX task_set_lines_task ON task_set_lines (local_id) WHERE local_id IS NOT NULL;
