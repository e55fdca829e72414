package record

import (
	"clapper/api"
	"errors"
)

const (
	SetBatch      SetKind = "batch"      // the lines of a batch file
	SetVariations SetKind = "variations" // versions of one request
)

// SetLine names one member of a set: the request the set's line Line makes.
type SetLine struct {
	SetID int64
	Line  int
}

// SetMember is one line of a set and the task row it made, if any.
type SetMember struct {
	Line      int
	Operation api.Operation
	Label     string // what tells a variation from its siblings
	LocalID   int64  // 0: never sent
	// Discarded lines are hidden from the contact sheet; their tasks stay.
	Discarded bool
	// Content tells what a batch line asks for (a hash of its operation
	// and request), whatever its place in the file; "" for versions.
	Content string
	// Retried: the line's failed task was sent again once already.
	Retried bool
}

// ErrLineSent refuses a second send of a set's line: its request was
// recorded (and sent, or may have been) before.
var ErrLineSent = errors.New("history: this line of the set was sent before")

// SetKind is what made a set of tasks.
type SetKind string
