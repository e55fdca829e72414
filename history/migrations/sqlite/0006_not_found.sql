-- 0006: tasks the service answers it does not know.
--
-- A read answered 404 adds one to count; any other answer deletes the row.
-- When count reaches the limit the tracker gives (three reads in a row, over
-- as many runs as it takes), lost_at is set and the task is no longer in
-- flight: no run reads it again, and the task keeps the state it had. The
-- row belongs to the local task, so it goes with it.
CREATE TABLE not_found (
    task     INTEGER PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
    count    INTEGER NOT NULL,
    first_at INTEGER NOT NULL,
    last_at  INTEGER NOT NULL,
    reason   TEXT    NOT NULL DEFAULT '',
    lost_at  INTEGER
);
