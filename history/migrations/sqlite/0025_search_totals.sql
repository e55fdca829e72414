-- 0025: the totals of a text search read each match in the narrow index.
--
-- The History page's totals of a search count its matches by state and sum
-- their credits. tasks_by_id (0012) had the state but not the credits, so
-- the totals looked each match up among the tasks' whole rows: a common
-- word is a quarter of the tasks, and at a million tasks those lookups
-- read most of the table. With the credits (and the sender, the one other
-- column a search filters on) every filter and total of a search is read
-- here; history/matching.go names this index for those queries.
DROP INDEX tasks_by_id;
CREATE INDEX tasks_by_id ON tasks (id, state, credits, created_at, operation, model, sent_by);
