package record

import "time"

// PastCost is what an earlier task like a new request was charged.
type PastCost struct {
	Credits   int64
	CreatedAt time.Time
	TaskID    string
}
