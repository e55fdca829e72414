package record

import (
	"clapper/api"
	"time"
)

// Intent is a creation request about to be POSTed.
type Intent struct {
	Operation api.Operation
	Model     string // empty takes the body's "model"
	Body      []byte // the exact JSON to be sent, data URIs included
	Origin    Origin // the front end sending it
	// Sender names the process sending it (host/pid/token): while it beats
	// (BeatIntent), the request is being sent, not of unknown outcome.
	Sender string
	// Set, when not nil, is the set line this request is made for: it is
	// tied to the request in the same transaction.
	Set *SetLine
	// Parent, when not nil, is the task this request was sent onward
	// from: tied to it in the same transaction.
	Parent *Parent
}

// SubmittedEcho is the service's answer to a creation request.
type SubmittedEcho struct {
	TaskID    string
	State     string // empty means created
	Credits   int64
	CreatedAt time.Time // the echo's created_at; zero when absent
	OffPeak   *bool     // as echoed; nil keeps what the request asked
	Raw       []byte
}

// Rejection is a creation request the service refused.
type Rejection struct {
	Status    int // HTTP status
	Reason    string
	Message   string
	TraceID   string
	Fields    []string
	Retryable bool // the same body may succeed later (429, 5xx)
}
