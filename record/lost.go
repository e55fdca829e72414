package record

import (
	"clapper/api"
	"time"
)

// NotFound is a task's run of 404 answers: reads in a row, over any number
// of runs, in which the service said it does not know the task.
type NotFound struct {
	LocalID   int64
	TaskID    string
	Operation api.Operation
	State     string // the task's state in history, kept as it was
	Count     int
	FirstAt   time.Time
	LastAt    time.Time
	Reason    string    // the last answer's reason, e.g. TaskNotFound
	LostAt    time.Time // when Count reached the limit; zero before
}

// Lost reports whether the task is no longer followed.
func (n NotFound) Lost() bool { return !n.LostAt.IsZero() }
