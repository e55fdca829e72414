-- 0030: a search's charts are read in the pass that counts its matches.
--
-- The History page's totals of a search (counts by state, credits) and its
-- charts (credits by day and by model) are one aggregate over the matches
-- (history/matching.go), which reads each match's day too. A search by
-- state, or by a word too short for the trigram index, reads its matches
-- in tasks_words (0020), which had no created_at: each match would be
-- looked up among the tasks' whole rows. With it, those totals and charts
-- come from this index alone.
DROP INDEX tasks_words;
CREATE INDEX tasks_words ON tasks (state, credits, operation, model, task_id, prompt, created_at);
