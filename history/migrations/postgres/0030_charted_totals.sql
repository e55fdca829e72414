-- 0030 on PostgreSQL: a search's charts are read in the pass that counts
-- its matches (history/matching.go), which reads each match's day too. A
-- search by state, operation or model reads tasks_state_totals (0029),
-- which had no created_at: each match would be read from the tasks' heap.
-- With it, those totals and charts come from the index alone. Searches
-- with words read tasks_fts (0025), which has created_at already.
DROP INDEX tasks_state_totals;
CREATE INDEX tasks_state_totals ON tasks (state) INCLUDE (credits, operation, model, created_at);
