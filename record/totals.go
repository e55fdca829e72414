package record

import "time"

// DayCredits is the spending of one calendar day.
type DayCredits struct {
	Day     time.Time // midnight starting the day, in from's location
	Credits int64
	Tasks   int // tasks the service accepted that day
}

// ModelCredits is the spending on one model.
type ModelCredits struct {
	Model   string // the operation's name for operations without a model (lip-sync, ...)
	Credits int64
	Tasks   int
}
