-- 0029: nothing changes on SQLite, whose tasks_words (0020) already gives
-- a search by state its totals from the index alone; PostgreSQL's 0029
-- gives a team's database the like, and the two trees keep one numbering.
SELECT 1;
