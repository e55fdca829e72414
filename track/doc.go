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
// a task) and never dropped. The row names its sender, which beats while it
// waits for the answer (intent.go): only a row nobody sends any more is of
// unknown outcome, by one rule for every front end, and an answer arriving
// for a row the user abandoned meanwhile reattaches it. A refused request keeps its body, so a 429
// QuotaExceeded or a transient failure is one key away from a resubmission.
//
// Polling is adaptive. A new task is read soon after creation; a running one
// sparsely until it nears the time its operation usually takes (learned from
// the tasks this client has seen finish, with a prior per operation), then
// densely; a queued one whenever another of the account's tasks finishes (the
// service admits queued tasks as running ones end) and otherwise rarely; a
// queued off-peak task (the service says so on each read) waits for quiet
// hours, so its reads thin out as it waits.
// Every read passes one token bucket shared by all tasks, failures back off
// exponentially, and a Retry-After from the server is honoured. Jitter keeps
// tasks created together from polling together.
//
// # States the spec does not name
//
// The spec names created, queueing, processing, success and failed, and
// leaves the state of a cancelled off-peak task "not shown". A word that
// api.IsTerminal knows for a task the service ended without a result
// (cancelled, canceled, expired) ends the following like failed: nothing can
// come after it, and create --wait says so and exits 1. Any other word is
// recorded as the service sent it, shown as "unknown state X"
// (api.DescribeState), and the task stays followed: each pause between reads
// is half the time spent in that state, up to QueueCheckMax, until the
// service names a state that ends it. Such a state is unordered: it neither
// holds back nor is held back by the next answer, since nothing says where it
// lies in the lifecycle. The order is api's (api.Supersedes), the one the
// history keeps too: a task ends once, and a different final answer after
// the first is stale.
//
// # Tasks the service does not know
//
// Only the service's own answer that it does not know the task (a 404 with
// the JSON reason TaskNotFound) is counted in history (RecordNotFound); an
// answer about the task ends the count. Any other 404 (a gateway's HTML
// page, a JSON NotFound for a path) says nothing about the task: it is a
// transient failure, backed off like a 503. A task is lost only after at
// least three TaskNotFound answers in a row that span LostWindow (ten
// minutes), in one run or over several, so neither a gateway blip nor a
// replica that has not heard of a new task loses it. A lost task is not
// followed again, its state stays as it was, and history.Store.LostTasks
// lists it so that watch can say why; the user can follow it again (clapper
// follow, r in the TUI), which clears the count.
//
// # Callbacks
//
// A callback is a signal, never the truth. The service signs the method,
// path, query, Date and nonce but not the body, so anyone who saw one
// callback's headers could pair them with any body. The Receiver checks the
// signature and the Date (within five minutes), refuses a nonce it has seen
// (401: a captured callback cannot be replayed at all), then only wakes the
// watcher for the task the body names: that task, or the multi-scene job a
// scene belongs to, is read from the service at once, under the same request
// budget as every read, and the service's answer is what history records and
// the UI shows. Nothing of the body is stored, downloaded or shown. A
// callback for a task this watcher does not follow causes no read; if the
// task is followed within a minute (a callback can outrun the creation
// answer), its first read comes at once. The service's redeliveries are
// signed anew, so each wakes the task, which by then is finished and no
// longer followed: three deliveries, one read, one change. Nonces are kept
// until their Date leaves the window, at most MaxNonces of them; a full cache
// answers 503 rather than forget a nonce that could still be replayed.
//
// # Downloads
//
// The Downloader is the one way clapper fetches a result: task results
// (queued in history, claimed by exactly one process, resumed), the videos
// of multi-scene versions and preview pictures (Save). All of them obey
// one policy (policy.go): file names and extensions from an allow-list per
// kind of result, else sniffed, else .bin; no decompression; a size cap per
// kind; no credentials.
//
// # Storage
//
// track owns no storage and imports no storage package: it speaks the
// record's types (clapper/record: Task, Download, Job…) and requires what it
// needs through its Store interface, every method of it required (no
// optional interface is found by assertion). The SQLite history implements
// it, a second record backend must too, and tests fake it.
package track
