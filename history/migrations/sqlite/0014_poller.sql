-- 0014: the one poller of this history.
--
-- Every clapper that follows all the tasks in flight (the TUI, clapper
-- watch) would read each task from the service; only the one named here
-- does, renewing lease_until while it runs, and the others follow the
-- history it writes. A lapsed lease, or an owner of this machine that no
-- longer runs, is taken over by the next claim.
CREATE TABLE poller (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    owner       TEXT    NOT NULL,
    lease_until INTEGER NOT NULL
);
