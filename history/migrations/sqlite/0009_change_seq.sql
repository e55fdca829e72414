-- 0009: a change sequence on tasks.
--
-- change_seq grows with every write to a task row (and to the versions of a
-- multi-scene job, which bump the job's task), in commit order: triggers
-- assign it inside the writing transaction, which holds the write lock. A
-- reader that remembers the highest value it has seen reads only the rows
-- changed since, instead of every task in flight, whichever process wrote.
ALTER TABLE tasks ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
UPDATE tasks SET change_seq = id;
CREATE INDEX tasks_change_seq ON tasks (change_seq);

CREATE TRIGGER tasks_change_seq_insert AFTER INSERT ON tasks BEGIN
    UPDATE tasks SET change_seq = (SELECT max(change_seq) FROM tasks) + 1 WHERE id = new.id;
END;

-- The guard skips the trigger's own update (and any write that set
-- change_seq itself).
CREATE TRIGGER tasks_change_seq_update AFTER UPDATE ON tasks
WHEN new.change_seq = old.change_seq BEGIN
    UPDATE tasks SET change_seq = (SELECT max(change_seq) FROM tasks) + 1 WHERE id = new.id;
END;

CREATE TRIGGER sub_jobs_change_seq_insert AFTER INSERT ON sub_jobs BEGIN
    UPDATE tasks SET change_seq = (SELECT max(change_seq) FROM tasks) + 1 WHERE task_id = new.job;
END;

CREATE TRIGGER sub_jobs_change_seq_update AFTER UPDATE OF state ON sub_jobs
WHEN new.state != old.state BEGIN
    UPDATE tasks SET change_seq = (SELECT max(change_seq) FROM tasks) + 1 WHERE task_id = new.job;
END;
