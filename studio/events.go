package studio

import (
	"context"
	"time"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// The tracking words the front ends speak, handed on by the studio so that
// no front end imports track: what an event is, the outcome of a send, and
// how a pause or an intent of unknown outcome reads.
type (
	// Event is one thing the backend learned, already recorded in history.
	Event = track.Event
	// EventKind says what an Event reports.
	EventKind = track.EventKind
	// Submission is what a send returns: the task and its local id.
	Submission = track.Submission
	// SubmitError is a send that failed, with whether it is safe to retry.
	SubmitError = track.SubmitError
	// NotSentError is a request refused before it left.
	NotSentError = track.NotSentError
	// WatcherOptions tune how tasks are followed (tests).
	WatcherOptions = track.WatcherOptions
)

const (
	EventState      = track.EventState
	EventDownload   = track.EventDownload
	EventJobUpdated = track.EventJobUpdated
	EventPollFailed = track.EventPollFailed
	EventLost       = track.EventLost
	EventPaused     = track.EventPaused
	EventSending    = track.EventSending
)

// reportSending returns ctx with the sends it makes of op reported as
// EventSending once recorded: the TUI lists a request the service has not
// answered yet as being sent, instead of nothing until the answer.
func (s *Studio) reportSending(ctx context.Context, op api.Operation) context.Context {
	return track.WithSending(ctx, func(localID int64) {
		s.publish(track.Event{Kind: track.EventSending, LocalID: localID, Operation: op, At: s.Now()})
	})
}

// ErrOutcomeUnknown: the service may or may not have created the task.
var ErrOutcomeUnknown = track.ErrOutcomeUnknown

// PauseNotice says how long the reads wait after a 429, as of now.
func PauseNotice(e Event, now time.Time) string { return track.PauseNotice(e, now) }

// OutcomeUnknown reports whether t is a send whose answer never came and
// whose sender is gone, as of now.
func OutcomeUnknown(t record.Task, now time.Time) bool { return track.OutcomeUnknown(t, now) }

// IntentStale is how long a request being sent may go without its
// sender's heartbeat before it is of unknown outcome.
const IntentStale = track.IntentStale

// UnknownAt is when an intent of unknown outcome was last known alive.
func UnknownAt(t record.Task) time.Time { return track.UnknownAt(t) }

// MediaOf names what op makes: "image", "video" or "audio".
func MediaOf(op api.Operation) string { return track.MediaOf(op) }

// SyncResult is the result in a synchronous operation's answer (a speech,
// a cloned voice), nil for a task that is followed.
func SyncResult(task *api.Task) *api.TaskResult { return track.SyncResult(task) }
