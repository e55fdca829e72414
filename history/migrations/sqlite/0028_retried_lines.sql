-- 0028: a batch's failed line sent again (clapper batch
-- --retry-failed) is marked, so that it is sent again once only: its
-- first task stays in history, the line is tied to the new one.
ALTER TABLE task_set_lines ADD COLUMN retried INTEGER NOT NULL DEFAULT 0;
