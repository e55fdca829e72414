-- 0022: the account as the service last counted it (GET /ent/v2/credits),
-- one row per account: the poller reads the service and writes it here, and
-- every other machine of a team shows it from here instead of asking too.
CREATE TABLE account_reads (
    account           TEXT   PRIMARY KEY,
    remaining         BIGINT NOT NULL,
    running           BIGINT NOT NULL,
    queued            BIGINT NOT NULL,
    concurrency_limit BIGINT NOT NULL,
    has_concurrency   BIGINT NOT NULL,
    read_at           BIGINT NOT NULL
);
