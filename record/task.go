package record

import (
	"clapper/api"
	"time"
)

// Local states a task holds before (or instead of) a service state. They never
// collide with the service's created/queueing/processing/success/failed.
const (
	// StateSubmitting: the intent is recorded and the POST may have been
	// sent; without a task id the outcome is unknown.
	StateSubmitting = "submitting"
	// StateRejected: the service refused the request, or it never reached
	// the service (a rejection of ReasonNotSent); the body is kept for a
	// resubmission.
	StateRejected = "rejected"
	// StateAbandoned: the user gave up on a rejected or unknown submission.
	StateAbandoned = "abandoned"
)

// ReasonNotSent is the rejection reason of a request that never reached the
// service (the connection failed): nothing was refused, nothing created.
const ReasonNotSent = "NotSent"

// NotSent reports a task whose request never reached the service.
func (t Task) NotSent() bool {
	return t.State == StateRejected && t.Rejection != nil && t.Rejection.Reason == ReasonNotSent
}

// Task is one row of the history. List queries (Tasks, InFlight,
// UnknownOutcomes) fill the summary fields only; Task and TaskByID also fill
// the fields marked "detail".
type Task struct {
	LocalID   int64
	TaskID    string // empty until the service assigned one
	Operation api.Operation
	Model     string
	Prompt    string // prompt, story, text or timing prompts: for display and search
	State     string // a service state or one of the local states above
	Origin    Origin // the front end that sent it; "" before origins were kept
	// SavedOn names the other machines of a team that saved its results
	// (detail only): they can be fetched here too while their URLs last.
	SavedOn []string
	// Account is the account it was sent on (a profile name or a hash of
	// the key, never the key) and SentBy who sent it (user@machine); both
	// "" for tasks recorded before a history kept them.
	Account, SentBy string
	ErrCode         string
	Credits         int64
	Progress        *int64 // percent, when the service reported it
	// URLsExpireAt is when the first of its result URLs lapses; zero when
	// it has none.
	URLsExpireAt time.Time

	OffPeak         bool
	OffPeakDeadline time.Time // creation + 48 h; zero unless OffPeak

	CreatedAt        time.Time // when the intent was recorded: the list's order
	UpdatedAt        time.Time
	ServiceCreatedAt time.Time // created_at of the echo; zero until known

	// Rejection is the last refusal of this task's submission. It stays
	// after a successful resubmission, as history.
	Rejection *Rejection

	// Sender names the process sending a request still submitting, and
	// SenderBeat when it last said it still is (track.OutcomeUnknown reads
	// them); empty when nobody says so.
	Sender     string
	SenderBeat time.Time

	// Tags (in alphabetical order) and Note are what the user said about
	// the task (see SetLabels).
	Tags []string
	Note string
	// SetID is the set (variations, a batch) it was sent in; 0 for none.
	SetID int64
	// Keeper: the version its set's contact sheet keeps (★).
	Keeper bool

	Request   []byte     // detail: the request with data URIs stripped
	Media     []MediaRef // detail: what the stripped data URIs were
	Payload   string     // detail: the request's pass-through payload
	Echo      []byte     // detail: the creation answer as received
	Result    []byte     // detail: the latest task result as received
	Pending   bool       // detail: the full body is kept for a resubmission
	Creations []Creation // detail: by index
	Events    []Event    // detail: state changes, oldest first
	// From are the tasks this one was sent onward from, one per field
	// their results filled (detail), and Onward the tasks sent onward from
	// this one (detail).
	From   []Link
	Onward []Link
}

// Creation is one result item with the expiry of each of its signed URLs.
type Creation struct {
	Index                int
	ID                   string
	URL                  string
	URLExpiresAt         time.Time
	CoverURL             string
	CoverExpiresAt       time.Time
	WatermarkedURL       string
	WatermarkedExpiresAt time.Time
	UpdatedAt            time.Time // when the store last received it
}

// CreationsFrom numbers the result items in order and gives every URL the
// same expiry, which is how the service signs them (24 h after the read; 1 h
// for trending-replicate).
func CreationsFrom(cs []api.Creation, expiresAt time.Time) []Creation {
	out := make([]Creation, len(cs))
	for i, c := range cs {
		out[i] = Creation{
			Index: i, ID: c.ID,
			URL: c.URL, URLExpiresAt: expiresAt,
			CoverURL: c.CoverURL, CoverExpiresAt: expiresAt,
			WatermarkedURL: c.WatermarkedURL, WatermarkedExpiresAt: expiresAt,
		}
	}
	return out
}

// Update is what one task result (a poll answer or a callback) says.
type Update struct {
	State   string
	ErrCode string
	Credits int64
	// KeepCredits: the result did not say (no credits field), so the
	// recorded credits stand rather than become Credits' zero.
	KeepCredits bool
	Progress    *int64 // nil keeps the last reported progress
	Creations   []Creation
	Raw         []byte
	ObservedAt  time.Time // when the result was received; zero means now
}

// Event is one state change of a task.
type Event struct {
	From string // "" for the first event
	To   string
	At   time.Time
	Raw  []byte // the body that reported the change, when there was one
}
