-- 0031 on PostgreSQL: a machine's own rows leave the team's database.
--
-- Saved files and their paths, download leases, scene versions' files and
-- the upload cache belong to one machine: each copy keeps them in a
-- history file in its data folder (history/machine.go). What the team
-- shares of them is that a result was saved, and where: saved_copies, one
-- row a task and machine, shown as "saved on NAME" on the others. The
-- saves recorded so far become its first rows.
CREATE TABLE saved_copies (
    task     BIGINT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    machine  TEXT   NOT NULL,
    saved_at BIGINT NOT NULL,
    PRIMARY KEY (task, machine)
);
INSERT INTO saved_copies (task, machine, saved_at)
    SELECT task, machine, max(updated_at) FROM downloads WHERE status = 'done' GROUP BY task, machine;
CREATE TRIGGER saved_copies_notify AFTER INSERT OR UPDATE OR DELETE ON saved_copies
    FOR EACH ROW EXECUTE FUNCTION clapper_notify_change();

-- Each machine's rows wait under old_machine_* for its first start, which
-- moves them into its machine file (history/machine.go, adoptOldRows): the
-- files it saved stay its own, its unfinished saves are finished.
DROP TRIGGER downloads_notify ON downloads;
DROP TRIGGER version_downloads_notify ON version_downloads;
ALTER TABLE downloads RENAME TO old_machine_downloads;
ALTER TABLE version_downloads RENAME TO old_machine_version_downloads;
ALTER TABLE uploads RENAME TO old_machine_uploads;
