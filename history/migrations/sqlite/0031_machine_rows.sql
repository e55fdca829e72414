-- 0031: a machine's own rows have no machine column.
--
-- A team's database no longer holds what belongs to one machine (its saved
-- files and their leases, its scene versions' files, its upload cache):
-- each copy keeps those in a history file in its data folder
-- (history/machine.go), where, as in a person's own history file, every
-- row is this machine's. The column 0021 added to tell machines apart goes.
ALTER TABLE downloads DROP COLUMN machine;
ALTER TABLE version_downloads DROP COLUMN machine;
ALTER TABLE uploads DROP COLUMN machine;
