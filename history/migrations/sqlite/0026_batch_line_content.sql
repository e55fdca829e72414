-- 0026: what a batch line asks for (a hash of its operation and
-- request), so that a batch file run again after an edit is matched line by
-- line: a line that ran before, unchanged, is not sent again, whichever of
-- its lines moved or changed.
ALTER TABLE task_set_lines ADD COLUMN content TEXT NOT NULL DEFAULT '';
CREATE INDEX task_set_lines_content ON task_set_lines (content) WHERE content <> '';
