package record

import "time"

// VoiceRetention is how long after its cloning the service keeps a cloned
// voice that speech synthesis has not used. A use within that time keeps the
// voice for good; a voice never used in time is deleted, and a later use
// cannot save it.
const VoiceRetention = 168 * time.Hour

// Voice is a cloned voice.
type Voice struct {
	VoiceID     string
	CloneTaskID string // the audio-clone task that made it
	CreatedAt   time.Time
	LastUsedAt  time.Time // last successful speech synthesis; zero if never used
	LastUsedBy  string    // who sent it (user@machine; "" before history kept it)
	DemoAudio   string    // preview URL, empty when no preview text was sent
	// ExpiresAt is creation + 168 h: the service deletes the voice then
	// unless it is Kept. It never moves.
	ExpiresAt time.Time
	// Kept: speech synthesis used the voice before ExpiresAt, so the
	// service keeps it and it no longer counts down.
	Kept    bool
	Deleted bool // the service dropped it, or the user forgot it here
}

// Expired reports whether the service has deleted the voice by now for
// want of a use in time.
func (v Voice) Expired(now time.Time) bool { return !v.Kept && !now.Before(v.ExpiresAt) }

// Expiring reports whether the voice still counts down and is deleted in
// (now, now+window] unless used: the voices a reminder is about. Kept,
// expired and deleted voices never are.
func (v Voice) Expiring(now time.Time, window time.Duration) bool {
	return !v.Kept && !v.Deleted && now.Before(v.ExpiresAt) && !v.ExpiresAt.After(now.Add(window))
}
