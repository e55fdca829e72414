-- 0004: task counts kept up to date by triggers.
--
-- The task list shows counts by state on every refresh. Counting 100,000
-- rows takes milliseconds; reading this table, one row per (state,
-- operation, model) that occurs, takes microseconds, and it still answers
-- filters on state, operation and model. Filters on text or dates count the
-- rows themselves.
CREATE TABLE task_counts (
    state     TEXT    NOT NULL,
    operation TEXT    NOT NULL,
    model     TEXT    NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (state, operation, model)
) WITHOUT ROWID;

INSERT INTO task_counts (state, operation, model, n)
SELECT state, operation, model, count(*) FROM tasks GROUP BY state, operation, model;

CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO task_counts (state, operation, model, n) VALUES (new.state, new.operation, new.model, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER task_counts_delete AFTER DELETE ON tasks BEGIN
    UPDATE task_counts SET n = n - 1
    WHERE state = old.state AND operation = old.operation AND model = old.model;
END;

CREATE TRIGGER task_counts_update AFTER UPDATE OF state, operation, model ON tasks
WHEN old.state != new.state OR old.operation != new.operation OR old.model != new.model BEGIN
    UPDATE task_counts SET n = n - 1
    WHERE state = old.state AND operation = old.operation AND model = old.model;
    INSERT INTO task_counts (state, operation, model, n) VALUES (new.state, new.operation, new.model, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
