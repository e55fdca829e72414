package track

import "time"

// PauseNotice is how front ends tell an EventPaused: the service asked to
// wait, and when reads resume.
func PauseNotice(e Event, now time.Time) string {
	left := max(e.Until.Sub(now), 0).Round(time.Second)
	return "the service asked to wait; retrying in " + left.String()
}
