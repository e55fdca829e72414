-- 0003: free-text search and task progress.
--
-- A trigram FTS5 index makes "contains" search over prompt, task id, model and
-- operation an index lookup instead of a scan of every prompt. It is an
-- external-content table: the text lives once, in tasks, and triggers keep the
-- index in step. Existing rows are indexed by the rebuild below.
CREATE VIRTUAL TABLE tasks_fts USING fts5 (
    prompt, task_id, model, operation,
    content = 'tasks', content_rowid = 'id', tokenize = 'trigram'
);

CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO tasks_fts (rowid, prompt, task_id, model, operation)
    VALUES (new.id, new.prompt, new.task_id, new.model, new.operation);
END;

CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
    INSERT INTO tasks_fts (tasks_fts, rowid, prompt, task_id, model, operation)
    VALUES ('delete', old.id, old.prompt, old.task_id, old.model, old.operation);
END;

CREATE TRIGGER tasks_fts_update AFTER UPDATE OF prompt, task_id, model, operation ON tasks BEGIN
    INSERT INTO tasks_fts (tasks_fts, rowid, prompt, task_id, model, operation)
    VALUES ('delete', old.id, old.prompt, old.task_id, old.model, old.operation);
    INSERT INTO tasks_fts (rowid, prompt, task_id, model, operation)
    VALUES (new.id, new.prompt, new.task_id, new.model, new.operation);
END;

INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');

-- Generation progress in percent, reported by trending-replicate; NULL when
-- the service never reported it.
ALTER TABLE tasks ADD COLUMN progress INTEGER;
