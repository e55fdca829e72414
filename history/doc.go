// Package history is clapper's SQLite record of every task, its state
// changes, results and downloads, every cloned voice and every multi-scene
// job, on modernc.org/sqlite (pure Go).
//
// # Connections
//
// One file in the user's data directory (directory 0700, file 0600) in WAL mode with
// synchronous NORMAL, a busy timeout and foreign keys, all set through the
// DSN's _pragma entries so that every pooled connection has them. Writes go
// through a pool of exactly one connection whose transactions begin IMMEDIATE
// (_txlock=immediate): writers in this process queue in Go, a writer never
// has to upgrade a read lock mid-transaction (the classic SQLITE_BUSY of
// deferred transactions), and a read-check-write inside one transaction is
// race-free even against a second clapper process. Reads use a separate small
// query_only pool, which WAL lets run while a write is in progress.
//
// # Migrations
//
// migrations/NNNN_name.sql are embedded and applied in order on Open, each in
// its own transaction with its PRAGMA user_version bump; forward only. When
// the file is current, Open's check is a single read of user_version, so
// opening a large history costs no table scan. A file with a version newer
// than the binary's is refused (*SchemaTooNewError) instead of being written
// by code that cannot know its schema.
//
// # Schema choices
//
// Times are INTEGER unix milliseconds UTC: compact, fast to compare and
// index, and immune to the text-ordering pitfalls of mixed time zones; NULL
// is "unknown". Every task has a local INTEGER PRIMARY KEY from the moment
// the user submits (state "submitting"), because the service's task id only
// exists after the POST answered: a crash in between leaves a row that the
// next start shows as an unknown outcome. The service id is a nullable UNIQUE
// column. Local states (submitting, rejected, abandoned) share the state
// column with the service's states, so one filter and one count cover both.
//
// Requests are kept with every data URI replaced by a placeholder carrying
// its sha256 and size (StripMedia), so that list and detail queries never
// drag megabytes of base64; the exact body needed to resubmit lives in
// pending_bodies only until the service assigns an id. Raw bodies (echo,
// results, events) are kept as received, for diagnosis.
//
// The task list is read newest first with keyset pagination on
// (created_at, local id), served by an index on created_at (the rowid is in
// every index) or on (filter column, created_at), so a page costs the same
// at the first row and the 100,000th. BeginSubmit never lets created_at
// decrease as the local id grows (a clock stepping back is clamped), so that
// order is also the rowid order; free text goes through a trigram FTS5 index
// over prompt, task id, model and operation (case-insensitive substring
// match; words shorter than three characters fall back to LIKE), and a
// search page walks that index newest first and stops after one page.
// Counts by state come from task_counts, kept by triggers per (state,
// operation, model), unless the filter has text or dates. Over dates (and
// for the credit charts) triggers keep sums per UTC day (state_days,
// model_days) and per hour (credit_hours): a span reads its whole days or
// hours there and its two partial ends from the tasks, so a year costs a few
// thousand rows (totals.go). A text search's dates become a span of local
// ids, which the search index skips to; its count alone (Count) is read from
// the index without a task, and its counts by state with what its matches
// cost and their charts by day and by model (TotalsMatching) in one
// aggregate that looks each match up once, in a narrow index of what
// searches filter and total on (tasks_by_id, tasks_words), and holds none
// of them: only their groups by state, day and model. A team's PostgreSQL keeps the search index as a
// table of its own (tasks_fts: that narrow row with the folded text, under
// a trigram index), which searches and their totals read, and the tasks
// only for the rows of a page.
//
// Every write to a task row (and to a multi-scene job's versions) gives it
// the next change_seq, in commit order, by trigger: FollowableSince reads
// only the rows written since the last look, so the tracker's re-load on
// every change costs what changed, not every task in flight. A result that
// says what the row holds writes nothing (ApplyResult): no commit, no change
// signal for other processes and screens.
//
// A creation's URL expiry is stored beside the URL; re-reading a task
// replaces a URL and its expiry only when the service handed out a different
// URL. A cloned voice stores its deadline, cloning + 168 h, which never
// moves: the service deletes the voice then unless speech synthesis used it
// before, and a use in time keeps it for good (kept) so it no longer counts
// down. A use after the deadline is noted as the last use but revives
// nothing. Only a successful audio-tts counts (RecordVoiceUse), at the
// task's creation time.
// Multi-scene jobs keep every version of every scene and composition, since
// the edit history is what the user navigates.
//
// # A team's database
//
// OpenPostgres opens a team's shared history on PostgreSQL: the same
// tables from migrations of the same numbers (migrations/postgres), the
// same SQL through the dialect (dialect.go). What belongs to one machine
// (its saved files and their leases, its scene versions' files, its upload
// cache) is kept in a history file of that machine's data folder, its
// machine file (machine.go), which mirrors the task and creation rows a
// download hangs on; the team learns of a save in saved_copies.
//
// # Prompt memory, tags and notes
//
// Every request recorded adds its prompt (or speech text) to prompts, once
// per operation with when it was last sent, by trigger, whichever front end
// sent it. The New page's ctrl+p search (SearchPrompts) walks it newest
// first and stops after a page; its fuzzy match (the pattern's characters in
// order) first tests an integer with a bit for each letter and digit of the
// text, on an index that holds it with the folded text, so a pattern that
// matches nothing walks one index and reads no table row
// (BenchmarkPromptSearch: 100,000 distinct prompts). Stars belong to a
// prompt's text (prompt_stars) and put it first. Tags (task_tags, indexed by
// tag) and a note (tasks.note) are the user's words about a task; tag:NAME
// in a filter is an EXISTS on the tag index.
package history
