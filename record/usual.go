package record

import "time"

// Usual is how long an operation and model usually take, from the request
// to its success.
type Usual struct {
	Median  time.Duration
	Samples int // how many successes it is the median of; 0 when none
}
