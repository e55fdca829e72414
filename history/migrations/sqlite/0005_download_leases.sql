-- 0005: download claims.
--
-- Each download is fetched by exactly one process: the one that claimed it,
-- named in owner, which renews lease_until while it works. A claim succeeds
-- only on a download that nobody holds or whose lease lapsed (its process was
-- killed or hangs), so a download left running by a kill -9 is taken over by
-- the next downloader and two live processes never fetch the same file. Rows
-- an older clapper left running have no owner: the first downloader takes them.
ALTER TABLE downloads ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE downloads ADD COLUMN lease_until INTEGER;
