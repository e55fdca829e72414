package record

import (
	"clapper/api"
	"fmt"
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
	// Parents are the tasks this request was sent onward from, one per
	// field their results fill: tied to them in the same transaction.
	Parents []Parent
	// Reserve is what the request is expected to cost (0 when unknown):
	// it counts as spent until the service's answer replaces it. Caps are
	// checked against the spending, reservations included, in the same
	// transaction that records the request: one that would be passed
	// refuses it with a *CapExceeded, and nothing is recorded.
	Reserve int64
	Caps    []Cap
}

// Cap bounds what the tasks of one origin ("" for every origin) created
// since Since may cost: Limit credits.
type Cap struct {
	Limit  int64
	Since  time.Time
	Origin Origin
	// Period names the cap's span for messages: "day" or "month".
	Period string
	// Known says the reservation is the request's price; a request of
	// unknown price is refused only once the cap is reached.
	Known bool
}

// CapExceeded refuses a request that would take spending past Cap (Spent
// so far, reservations included).
type CapExceeded struct {
	Cap   Cap
	Spent int64
}

func (e *CapExceeded) Error() string {
	return fmt.Sprintf("the credit cap of %d is reached: %d spent or reserved", e.Cap.Limit, e.Spent)
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
