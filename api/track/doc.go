// Package track is a task's lifecycle on the client: durable submission,
// the watcher that polls every task in flight under one request budget, the
// receiver of the service's signed callbacks, and the downloader that saves
// results before their URLs expire.
//
// Everything it learns is written to the history first and delivered as an
// Event after, so a screen never shows what a crash would forget.
//
// Submission is write-ahead: an intent row (with the full body) is committed
// before the POST, and the task id the moment the answer arrives. A crash in
// between leaves the intent in state "submitting": it is shown as "outcome
// unknown" with its request, never resubmitted silently (it may have created
// a task) and never dropped. A refused request keeps its body, so a 429
// QuotaExceeded or a transient failure is one key away from a resubmission.
//
// Polling is adaptive. A new task is read soon after creation; a running one
// sparsely until it nears the time its operation usually takes (learned from
// the tasks this client has seen finish, with a prior per operation), then
// densely; a queued one whenever another of the account's tasks finishes (the
// service admits queued tasks as running ones end) and otherwise rarely.
// Every read passes one token bucket shared by all tasks, failures back off
// exponentially, and a Retry-After from the server is honoured. Jitter keeps
// tasks created together from polling together.
//
// The package depends on history for its record types: the Store interface
// lists exactly what it needs, which *history.Store satisfies and tests fake.
package track
