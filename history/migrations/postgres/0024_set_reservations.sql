-- 0024 (as on SQLite): a running batch or variation set reserves its unsent lines as a
-- whole: reserved credits, kept while the run says it still runs
-- (reserved_beat, unix ms), so that another send cannot take the room the
-- set was checked for. A line's own reservation replaces its share as it is
-- recorded; the run releases the rest when it ends, and a run that died
-- holds nothing once its beat is a minute old.
ALTER TABLE task_sets ADD COLUMN reserved BIGINT NOT NULL DEFAULT 0;
ALTER TABLE task_sets ADD COLUMN reserved_beat BIGINT NOT NULL DEFAULT 0;
