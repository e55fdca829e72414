-- 0021: what a team's shared history needs, kept the same in a file.
--
-- Every task knows the account it was sent on (a profile name or a hash of
-- the key, never the key) and who sent it (user@machine); a voice, who used
-- it last. Downloads belong to the machine that saved them (in a file there
-- is one machine: its rows say ''). The poller's lease is one per account.
ALTER TABLE tasks ADD COLUMN account TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN sent_by TEXT NOT NULL DEFAULT '';
CREATE INDEX tasks_sent_by ON tasks (sent_by, created_at);
ALTER TABLE voices ADD COLUMN last_used_by TEXT NOT NULL DEFAULT '';
ALTER TABLE downloads ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE version_downloads ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE uploads ADD COLUMN machine TEXT NOT NULL DEFAULT '';

DROP TABLE poller;
CREATE TABLE poller (
    account     TEXT    PRIMARY KEY,
    owner       TEXT    NOT NULL,
    lease_until INTEGER NOT NULL
) WITHOUT ROWID;
