-- 0025 on PostgreSQL: the search index becomes a narrow table of its own.
--
-- A common word is in a quarter of the tasks. Its trigram index (0001) was
-- on the tasks, and every match it found was checked again on the task's
-- row, with the text folded again, and read for its state and credits: a
-- visit to nearly every page of a wide table (requests and results
-- included) for one search's totals, 0.4 s at a million tasks. tasks_fts
-- holds, per task, the folded text and the columns a search filters and
-- totals on, the ones history/query.go's conditions name: searches read it
-- as t, and the tasks only for the rows of a page. Its rows are 60% of the
-- tasks' bytes in the benchmarks' history, whose requests are a few words,
-- and far less of a real one's. Triggers keep it; an update of none of
-- these columns (progress, times, results) leaves it alone, and the tasks
-- lose the search's indexes, which every change of a task's state wrote.
-- The step builds the trigram index anew: half a minute at a million tasks.
CREATE TABLE tasks_fts (
    id         BIGINT PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    state      TEXT   NOT NULL,
    credits    BIGINT NOT NULL,
    operation  TEXT   NOT NULL,
    model      TEXT   NOT NULL,
    sent_by    TEXT   NOT NULL,
    words      TEXT   NOT NULL -- prompt, task id, model and operation, folded
);

CREATE FUNCTION tasks_fts_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tasks_fts (id, created_at, state, credits, operation, model, sent_by, words)
    VALUES (NEW.id, NEW.created_at, NEW.state, NEW.credits, NEW.operation, NEW.model, NEW.sent_by,
        lower(NEW.prompt || ' ' || coalesce(NEW.task_id, '') || ' ' || NEW.model || ' ' || NEW.operation))
    ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, state = excluded.state,
        credits = excluded.credits, operation = excluded.operation, model = excluded.model,
        sent_by = excluded.sent_by, words = excluded.words;
    RETURN NULL;
END $$;
CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks
    FOR EACH ROW EXECUTE FUNCTION tasks_fts_row();
CREATE TRIGGER tasks_fts_update AFTER UPDATE ON tasks
    FOR EACH ROW WHEN ((OLD.created_at, OLD.state, OLD.credits, OLD.operation, OLD.model, OLD.sent_by, OLD.prompt, OLD.task_id)
        IS DISTINCT FROM (NEW.created_at, NEW.state, NEW.credits, NEW.operation, NEW.model, NEW.sent_by, NEW.prompt, NEW.task_id))
    EXECUTE FUNCTION tasks_fts_row();

INSERT INTO tasks_fts (id, created_at, state, credits, operation, model, sent_by, words)
SELECT id, created_at, state, credits, operation, model, sent_by,
    lower(prompt || ' ' || coalesce(task_id, '') || ' ' || model || ' ' || operation)
FROM tasks;

CREATE INDEX tasks_fts_words ON tasks_fts USING gin (words gin_trgm_ops);
-- A search within dates reads the tasks of those dates.
CREATE INDEX tasks_fts_created ON tasks_fts (created_at);

DROP INDEX tasks_search;
DROP INDEX tasks_by_id;
DROP INDEX tasks_words;
