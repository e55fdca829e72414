-- 0027: a task may be made of several tasks' results, one per field (a
-- lip-sync of one task's video and another's speech): its links to them are
-- keyed by the field, no longer by the task alone. And results are found by
-- their URL, so that a request whose field holds a result's URL is tied to
-- that task even when it was filled before a restart.
CREATE TABLE task_parents_new (
    task   INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    parent INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    field  TEXT    NOT NULL,
    PRIMARY KEY (task, field)
);
INSERT INTO task_parents_new (task, parent, field) SELECT task, parent, field FROM task_parents;
DROP TABLE task_parents;
ALTER TABLE task_parents_new RENAME TO task_parents;
CREATE INDEX task_parents_parent ON task_parents (parent);
CREATE INDEX creations_url ON creations (url) WHERE url <> '';
