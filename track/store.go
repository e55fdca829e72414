package track

import (
	"context"
	"time"

	"clapper/api"
	"clapper/record"
)

// Store is what tracking needs of the record, all of it required: the
// SQLite history implements it, and so must any other record. Tracking
// owns no storage of its own.
type Store interface {
	// FollowableSince lists the tasks to follow written after change
	// number seq (in flight, or a multi-scene job with a version under
	// way), and the number to ask from next time: a history of 20,000 tasks
	// in flight costs a few rows per change, not 20,000.
	FollowableSince(ctx context.Context, seq int64) ([]record.Task, int64, error)
	// ClaimPoller takes or renews the account's poller lease for owner and
	// names its holder; ReleasePoller gives it up (poller.go).
	ClaimPoller(ctx context.Context, owner string, now time.Time, lease time.Duration, gone func(string) bool) (string, error)
	ReleasePoller(ctx context.Context, owner string) error
	TaskByID(ctx context.Context, taskID string) (record.Task, error)
	// RunningTimes are how long the latest successes of an operation and
	// model were seen processing, newest first.
	RunningTimes(ctx context.Context, op api.Operation, model string) ([]time.Duration, error)
	LostTask(ctx context.Context, taskID string) (bool, error)
	BeginSubmit(ctx context.Context, in record.Intent) (int64, error)
	MarkSubmitted(ctx context.Context, localID int64, e record.SubmittedEcho) error
	MarkRejected(ctx context.Context, localID int64, r record.Rejection) error
	Resubmit(ctx context.Context, localID int64) ([]byte, error)
	BeatIntent(ctx context.Context, localID int64, sender string) error
	StopSending(ctx context.Context, localID int64) error
	ApplyResult(ctx context.Context, taskID string, u record.Update) (bool, error)
	RecordNotFound(ctx context.Context, taskID string, at time.Time, reason string, limit int, window time.Duration) (record.NotFound, error)
	ClearNotFound(ctx context.Context, taskID string) error
	SaveJob(ctx context.Context, j api.OneClickJob) (bool, error)
	RecordVoice(ctx context.Context, v record.Voice) error
	RecordVoiceUse(ctx context.Context, taskID string) error
	QueueDownload(ctx context.Context, taskID string, index int, kind record.URLKind, path string) (int64, error)
	UpdateDownload(ctx context.Context, id int64, p record.DownloadProgress) error
	PendingDownloads(ctx context.Context) ([]record.Download, error)
	Downloads(ctx context.Context, taskID string) ([]record.Download, error)
	ClaimDownload(ctx context.Context, id int64, owner string, lease time.Duration) (record.Download, error)
	TakeOverDownload(ctx context.Context, id int64, gone, owner string, lease time.Duration) (record.Download, error)
	RenewDownload(ctx context.Context, id int64, owner string, lease time.Duration) error
}

// Clock tells the time; tests and benchmarks drive a fake one.
type Clock interface{ Now() time.Time }

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// WallClock is the real time.
var WallClock Clock = wallClock{}
