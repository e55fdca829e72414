-- 0029 on PostgreSQL: the totals of a search by state (state:failed, the
-- History page's totals line) come from an index alone, as on SQLite
-- (tasks_words, 0020). 0025 dropped PostgreSQL's like of it with the
-- search's indexes; a state filter's totals then visited a page of the
-- wide tasks table for every match: 0.2-0.6 s at a million tasks, against
-- 20-35 ms from this index. Operation and model ride along, so a search
-- by those is summed from the index's pages too, not the table's. A task's
-- change of state writes its tasks_state entry already; this is one more.
CREATE INDEX tasks_state_totals ON tasks (state) INCLUDE (credits, operation, model);
