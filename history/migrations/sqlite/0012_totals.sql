-- 0012: totals by day and by hour, kept up to date by triggers.
--
-- The History page's counts over a span of dates and its charts (credits by
-- day, by model) summed 100,000 task rows for a year. These tables hold the
-- same sums per UTC day (per hour for credits, so that a local day of any
-- whole-hour time zone is a sum of hours): a year is a few thousand rows.
-- The queries read whole units here and count the partial units at the ends
-- of a span from the tasks themselves. model is the model, or the operation
-- for an operation without one (as CreditsByModel names it); model_days and
-- credit_hours hold the tasks the service accepted (with a task id).
CREATE TABLE state_days (
    day   INTEGER NOT NULL, -- created_at / 86,400,000
    state TEXT    NOT NULL,
    n     INTEGER NOT NULL,
    PRIMARY KEY (day, state)
) WITHOUT ROWID;

CREATE TABLE model_days (
    day     INTEGER NOT NULL,
    model   TEXT    NOT NULL,
    tasks   INTEGER NOT NULL,
    credits INTEGER NOT NULL,
    PRIMARY KEY (day, model)
) WITHOUT ROWID;

CREATE TABLE credit_hours (
    hour    INTEGER PRIMARY KEY, -- created_at / 3,600,000
    tasks   INTEGER NOT NULL,
    credits INTEGER NOT NULL
);

INSERT INTO state_days (day, state, n)
SELECT created_at / 86400000, state, count(*) FROM tasks GROUP BY 1, 2;
INSERT INTO model_days (day, model, tasks, credits)
SELECT created_at / 86400000, CASE model WHEN '' THEN operation ELSE model END, count(*), sum(credits)
FROM tasks WHERE task_id IS NOT NULL GROUP BY 1, 2;
INSERT INTO credit_hours (hour, tasks, credits)
SELECT created_at / 3600000, count(*), sum(credits) FROM tasks WHERE task_id IS NOT NULL GROUP BY 1;

CREATE TRIGGER totals_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO state_days (day, state, n) VALUES (new.created_at / 86400000, new.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO model_days (day, model, tasks, credits)
    SELECT new.created_at / 86400000, CASE new.model WHEN '' THEN new.operation ELSE new.model END, 1, new.credits
    WHERE new.task_id IS NOT NULL
    ON CONFLICT DO UPDATE SET tasks = tasks + 1, credits = credits + excluded.credits;
    INSERT INTO credit_hours (hour, tasks, credits)
    SELECT new.created_at / 3600000, 1, new.credits WHERE new.task_id IS NOT NULL
    ON CONFLICT DO UPDATE SET tasks = tasks + 1, credits = credits + excluded.credits;
END;

CREATE TRIGGER totals_delete AFTER DELETE ON tasks BEGIN
    UPDATE state_days SET n = n - 1 WHERE day = old.created_at / 86400000 AND state = old.state;
    UPDATE model_days SET tasks = tasks - 1, credits = credits - old.credits
    WHERE old.task_id IS NOT NULL AND day = old.created_at / 86400000
    AND model = CASE old.model WHEN '' THEN old.operation ELSE old.model END;
    UPDATE credit_hours SET tasks = tasks - 1, credits = credits - old.credits
    WHERE old.task_id IS NOT NULL AND hour = old.created_at / 3600000;
END;

CREATE TRIGGER totals_update AFTER UPDATE OF created_at, state, model, operation, credits, task_id ON tasks
WHEN old.created_at != new.created_at OR old.state != new.state OR old.model != new.model
    OR old.operation != new.operation OR old.credits != new.credits OR old.task_id IS NOT new.task_id BEGIN
    UPDATE state_days SET n = n - 1 WHERE day = old.created_at / 86400000 AND state = old.state;
    UPDATE model_days SET tasks = tasks - 1, credits = credits - old.credits
    WHERE old.task_id IS NOT NULL AND day = old.created_at / 86400000
    AND model = CASE old.model WHEN '' THEN old.operation ELSE old.model END;
    UPDATE credit_hours SET tasks = tasks - 1, credits = credits - old.credits
    WHERE old.task_id IS NOT NULL AND hour = old.created_at / 3600000;
    INSERT INTO state_days (day, state, n) VALUES (new.created_at / 86400000, new.state, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO model_days (day, model, tasks, credits)
    SELECT new.created_at / 86400000, CASE new.model WHEN '' THEN new.operation ELSE new.model END, 1, new.credits
    WHERE new.task_id IS NOT NULL
    ON CONFLICT DO UPDATE SET tasks = tasks + 1, credits = credits + excluded.credits;
    INSERT INTO credit_hours (hour, tasks, credits)
    SELECT new.created_at / 3600000, 1, new.credits WHERE new.task_id IS NOT NULL
    ON CONFLICT DO UPDATE SET tasks = tasks + 1, credits = credits + excluded.credits;
END;

-- The Scenes page's list of jobs read by id, newest first.
CREATE INDEX jobs_created ON jobs (coalesce(created_at, fetched_at), id);

-- Counts by state of a text search look up each match by its id: in this
-- narrow index rather than among the whole rows, a tenth of the pages.
CREATE INDEX tasks_by_id ON tasks (id, state, created_at, operation, model);
