-- 0018: a set's keeper and its discarded results, chosen on the contact
-- sheet.
--
-- keeper_line is the line of the version the user keeps (one per set; NULL
-- for none yet). A discarded line is hidden from the contact sheet; its
-- task row, its results and its saved files stay (history never forgets a
-- task that cost credits; a file is deleted only when the user says so).
ALTER TABLE task_sets ADD COLUMN keeper_line INTEGER;
ALTER TABLE task_set_lines ADD COLUMN discarded INTEGER NOT NULL DEFAULT 0;
