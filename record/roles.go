package record

import (
	"context"
	"time"

	"clapper/api"
)

// The record's verbs, by role. Each front end and each part of the studio
// takes the narrowest role it needs; Store is all of them, what a backend
// implements (the SQLite history today) and what the studio hands out.

// Tasks reads the record of tasks and what they cost.
type Tasks interface {
	Task(ctx context.Context, localID int64) (Task, error)
	TaskByID(ctx context.Context, taskID string) (Task, error)
	TaskSummaries(ctx context.Context, taskIDs []string) ([]Task, error)
	Tasks(ctx context.Context, f Filter) (Page, error)
	Count(ctx context.Context, f Filter) (int, error)
	CountsByState(ctx context.Context, f Filter) (map[string]int, error)
	// TotalsMatching is the counts and credits of the tasks a search
	// matches, and the charts of those in [from, to) (from zero: none).
	TotalsMatching(ctx context.Context, f Filter, from, to time.Time) (Totals, error)
	UsualDuration(ctx context.Context, op api.Operation, model string) (Usual, error)
	RunningTimes(ctx context.Context, op api.Operation, model string) ([]time.Duration, error)
	LastCost(ctx context.Context, op api.Operation, model string, like func(request map[string]any) bool) (PastCost, bool, error)
	CreditsByDay(ctx context.Context, from, to time.Time) ([]DayCredits, error)
	CreditsByModel(ctx context.Context, from, to time.Time) ([]ModelCredits, error)
	CreditsSince(ctx context.Context, origin Origin, from time.Time) (int64, error)
	SetLabels(ctx context.Context, localID int64, tags []string, note string) error
}

// Intents are the sending side: a request is written before it is sent
// and its outcome after, so a crash loses no task the service created.
type Intents interface {
	BeginSubmit(ctx context.Context, in Intent) (localID int64, err error)
	MarkSubmitted(ctx context.Context, localID int64, e SubmittedEcho) error
	MarkRejected(ctx context.Context, localID int64, r Rejection) error
	PendingBody(ctx context.Context, localID int64) ([]byte, error)
	Resubmit(ctx context.Context, localID int64) ([]byte, error)
	UnknownOutcomes(ctx context.Context) ([]Task, error)
	ResolveUnknown(ctx context.Context, localID int64, taskID string) error
	Abandon(ctx context.Context, localID int64) error
	StopSending(ctx context.Context, localID int64) error
	BeatIntent(ctx context.Context, localID int64, sender string) error
	AddCredits(ctx context.Context, localID, credits int64) error
}

// Following is what the one poller of an account writes and reads.
type Following interface {
	InFlight(ctx context.Context) ([]Task, error)
	FollowableSince(ctx context.Context, seq int64) (tasks []Task, next int64, err error)
	BusyJobs(ctx context.Context) ([]Task, error)
	ApplyResult(ctx context.Context, taskID string, u Update) (changed bool, err error)
	RecordNotFound(ctx context.Context, taskID string, at time.Time, reason string, limit int, window time.Duration) (NotFound, error)
	ClearNotFound(ctx context.Context, taskID string) error
	Refollow(ctx context.Context, taskID string) (wasLost bool, err error)
	LostTask(ctx context.Context, taskID string) (bool, error)
	LostTasks(ctx context.Context) ([]NotFound, error)
	ClaimPoller(ctx context.Context, owner string, now time.Time, lease time.Duration, gone func(holder string) bool) (holder string, err error)
	ReleasePoller(ctx context.Context, owner string) error
	// WatchChanges calls w.Changed after commits of other processes (or
	// machines), and w.PollerFreed when the account's poller gave up its
	// lease, from its own goroutine, until ctx ends. A history file is
	// looked at every interval; a team's database says so at once.
	WatchChanges(ctx context.Context, every time.Duration, w ChangeWatch) error
	// Reach is how the history is reached now: a file always is; a team's
	// database may be out of reach for a while (changes are caught up
	// when it is back).
	Reach() Reach
}

// Accounts keep the account as the service last counted it, so that one
// machine of a team reads it and every machine shows it.
type Accounts interface {
	SaveAccountRead(ctx context.Context, r AccountRead) error
	// AccountRead is the latest read of account; ok is false when none.
	AccountRead(ctx context.Context, account string) (r AccountRead, ok bool, err error)
}

// AccountRead is one read of the account's credits and the service's own
// count of its tasks.
type AccountRead struct {
	Account                string
	Remaining              int64
	HasConcurrency         bool
	Running, Queued, Limit int64
	ReadAt                 time.Time
}

// ChangeWatch is what a change watcher calls (either may be nil).
type ChangeWatch struct {
	Changed, PollerFreed func()
}

// Reach is the state of the connection to the history.
type Reach struct {
	Up bool
	// Since is when it went down (zero while up); Err why.
	Since time.Time
	Err   string
}

// Downloads are this machine's saved files and their leases.
type Downloads interface {
	QueueDownload(ctx context.Context, taskID string, index int, kind URLKind, path string) (int64, error)
	UpdateDownload(ctx context.Context, id int64, p DownloadProgress) error
	ClaimDownload(ctx context.Context, id int64, owner string, lease time.Duration) (Download, error)
	TakeOverDownload(ctx context.Context, id int64, gone, owner string, lease time.Duration) (Download, error)
	RenewDownload(ctx context.Context, id int64, owner string, lease time.Duration) error
	Downloads(ctx context.Context, taskID string) ([]Download, error)
	PendingDownloads(ctx context.Context) ([]Download, error)
	SavedFile(ctx context.Context, path string) (bool, error)
	// UnsavedSuccesses are the tasks sent by sentBy that ended with a
	// result still to fetch at now while no copy of this machine
	// followed them (in a team's history: a teammate's poller read their
	// end), which this machine has not saved.
	UnsavedSuccesses(ctx context.Context, sentBy string, now time.Time) ([]string, error)
	// LeaveUnsaved records that this machine saw task taskID succeed and
	// left its results unsaved by choice: UnsavedSuccesses leaves it.
	LeaveUnsaved(ctx context.Context, taskID string) error
}

// Jobs are the multi-scene jobs, their versions and the versions' files.
type Jobs interface {
	SaveJob(ctx context.Context, j api.OneClickJob) (changed bool, err error)
	Job(ctx context.Context, id string) (Job, error)
	JobSummaries(ctx context.Context, limit int) ([]JobSummary, error)
	ChooseVersion(ctx context.Context, jobID string, sceneIdx int, subJobID string) error
	AddVersion(ctx context.Context, jobID, recordType string, recordIdx int, v SubJob) error
	ChargeVersion(ctx context.Context, localID int64, subJobID string, credits int64) error
	StartVersionDownload(ctx context.Context, jobID, subJobID, path string, stale time.Duration) (bool, error)
	LostVersionDownload(ctx context.Context, subJobID, path string) error
	UnfinishedVersionDownloads(ctx context.Context, stale time.Duration) ([]VersionDownload, error)
	FinishVersionDownload(ctx context.Context, subJobID, path string, bytes int64, why error) error
}

// Voices are the cloned voices and their last use.
type Voices interface {
	RecordVoice(ctx context.Context, v Voice) error
	RecordVoiceUse(ctx context.Context, taskID string) error
	DeleteVoice(ctx context.Context, voiceID string) error
	Voices(ctx context.Context) ([]Voice, error)
	VoicesExpiringWithin(ctx context.Context, now time.Time, window time.Duration) ([]Voice, error)
}

// Sets are variations and batches: tasks sent as one set.
type Sets interface {
	OpenSet(ctx context.Context, kind SetKind, key, name string, members []SetMember) (id int64, created bool, err error)
	SetMembers(ctx context.Context, setID int64) ([]SetMember, error)
	RanBefore(ctx context.Context, setID int64) (map[int]int64, error)
	DropSet(ctx context.Context, setID int64) error
	RetryFailedLines(ctx context.Context, setID int64) ([]int, error)
	TasksByResultURL(ctx context.Context, urls []string) (map[string]int64, error)
	Lineage(ctx context.Context, localID int64) ([]LineageNode, error)
	Sets(ctx context.Context, limit int) ([]SetInfo, error)
	Set(ctx context.Context, id int64) (SetInfo, error)
	SetOfTask(ctx context.Context, localID int64) (int64, error)
	KeepSetLine(ctx context.Context, setID int64, line int) error
	DiscardSetLine(ctx context.Context, setID int64, line int) error
	RestoreSetLine(ctx context.Context, setID int64, line int) error
	// ReserveSet holds credits for a running set's unsent lines, checked
	// against caps in the same transaction (a *CapExceeded refuses it); 0
	// releases them. A run renews it while it runs.
	ReserveSet(ctx context.Context, setID, credits int64, caps []Cap) error
}

// Prompts are the distinct prompts sent, for the earlier-prompts picker.
type Prompts interface {
	SearchPrompts(ctx context.Context, q PromptQuery) ([]Prompt, error)
	StarPrompt(ctx context.Context, text string, on bool, at time.Time) error
}

// Uploads are the files uploaded to the service and the subjects stored
// there.
type Uploads interface {
	RecordUpload(ctx context.Context, u Upload) error
	UploadOf(ctx context.Context, sha string, now time.Time) (u Upload, ok bool, err error)
	ForgetUpload(ctx context.Context, sha string) error
	RecordSubject(ctx context.Context, sb Subject) error
	Subjects(ctx context.Context) ([]Subject, error)
}

// Store is every role: what a record backend implements.
type Store interface {
	Accounts
	Tasks
	Intents
	Following
	Downloads
	Jobs
	Voices
	Sets
	Prompts
	Uploads
	Close() error
}
