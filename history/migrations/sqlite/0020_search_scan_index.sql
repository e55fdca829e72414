-- 0020: searches the trigram index cannot serve read a narrow index.
--
-- A word of one or two letters is matched with LIKE, and its totals (the
-- matches by state and their credits) visit every task. Read from the
-- table, that visit reads every row whole, requests and results included:
-- 70 ms at 100,000 tasks, 47 of them reading. This index holds every column
-- such a search and its totals read, so SQLite scans it instead (29 ms) at
-- about 120 bytes a task. Progress and times are not in it, so the frequent
-- updates of tasks in flight do not touch it.
CREATE INDEX tasks_words ON tasks (state, credits, operation, model, task_id, prompt);
