package track

import (
	"context"
	"time"

	"clapper/api"
	"clapper/history"
)

// Store is what tracking needs of the history; *history.Store satisfies it.
type Store interface {
	BeginSubmit(ctx context.Context, in history.Intent) (int64, error)
	MarkSubmitted(ctx context.Context, localID int64, e history.SubmittedEcho) error
	MarkRejected(ctx context.Context, localID int64, r history.Rejection) error
	Resubmit(ctx context.Context, localID int64) ([]byte, error)
	BeatIntent(ctx context.Context, localID int64, sender string) error
	StopSending(ctx context.Context, localID int64) error
	InFlight(ctx context.Context) ([]history.Task, error)
	ApplyResult(ctx context.Context, taskID string, u history.Update) (bool, error)
	RecordNotFound(ctx context.Context, taskID string, at time.Time, reason string, limit int, window time.Duration) (history.NotFound, error)
	ClearNotFound(ctx context.Context, taskID string) error
	SaveJob(ctx context.Context, j api.OneClickJob) (bool, error)
	RecordVoice(ctx context.Context, v history.Voice) error
	RecordVoiceUse(ctx context.Context, taskID string) error
	QueueDownload(ctx context.Context, taskID string, index int, kind history.URLKind, path string) (int64, error)
	UpdateDownload(ctx context.Context, id int64, p history.DownloadProgress) error
	PendingDownloads(ctx context.Context) ([]history.Download, error)
	Downloads(ctx context.Context, taskID string) ([]history.Download, error)
	ClaimDownload(ctx context.Context, id int64, owner string, lease time.Duration) (history.Download, error)
	TakeOverDownload(ctx context.Context, id int64, gone, owner string, lease time.Duration) (history.Download, error)
	RenewDownload(ctx context.Context, id int64, owner string, lease time.Duration) error
}

// Clock tells the time; tests and benchmarks drive a fake one.
type Clock interface{ Now() time.Time }

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// WallClock is the real time.
var WallClock Clock = wallClock{}
