package record

import (
	"errors"
	"time"
)

// SetInfo is a set as a list of sets shows it.
type SetInfo struct {
	ID        int64
	Kind      SetKind
	Name      string
	CreatedAt time.Time
	Lines     int // its requests
	Sent      int // of them recorded (sent, or maybe sent)
	Keeper    int // the kept version's line; 0 for none
}

// ErrNoSet: no set has that id, or the task is in none.
var ErrNoSet = errors.New("history: no such set")
