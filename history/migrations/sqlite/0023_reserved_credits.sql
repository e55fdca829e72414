-- 0023: spending is reserved before it is sent. A request records what it
-- is expected to cost as it is recorded, in the same transaction as the
-- caps' check (history/origin.go); until the service's answer replaces it
-- the reservation counts as spent: released when the request is refused or
-- never sent, kept while its outcome is unknown (the service may have
-- billed it).
ALTER TABLE tasks ADD COLUMN reserved BIGINT NOT NULL DEFAULT 0;
