-- 0010: every task records the front end that started it.
--
-- 'tui', 'cli' or 'mcp' (an AI agent through `clapper mcp`); '' for tasks
-- recorded before this column existed, whose origin nobody knows. The daily
-- credit cap for agent work sums today's credits of origin 'mcp', so those
-- rows are indexed by creation time.
ALTER TABLE tasks ADD COLUMN origin TEXT NOT NULL DEFAULT '';
CREATE INDEX tasks_origin_created ON tasks (origin, created_at) WHERE origin != '';
