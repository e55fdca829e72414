-- 0027 (as on SQLite): a task may be made of several tasks' results, one
-- per field (a lip-sync of one task's video and another's speech): its
-- links to them are keyed by the field, no longer by the task alone. And
-- results are found by their URL, so that a request whose field holds a
-- result's URL is tied to that task even when it was filled before a
-- restart.
ALTER TABLE task_parents DROP CONSTRAINT task_parents_pkey;
ALTER TABLE task_parents ADD PRIMARY KEY (task, field);
CREATE INDEX creations_url ON creations (url) WHERE url <> '';
