package record

import "errors"

// Errors the methods wrap; test with errors.Is.
var (
	// ErrNotFound: no row has the given local id, task id, voice id or job id.
	ErrNotFound = errors.New("history: not found")
	// ErrConflict: the row is not in a state that allows the change (for
	// example MarkSubmitted on a task that is no longer submitting), or the
	// change would duplicate a unique id.
	ErrConflict = errors.New("history: conflicts with the recorded state")
)
