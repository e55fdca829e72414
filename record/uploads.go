package record

import "time"

// Upload is an image sent through the service's upload flow.
type Upload struct {
	SHA256      string
	URI         string
	ContentType string
	Size        int
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// Subject is a stored subject as the service last answered it.
type Subject struct {
	ID, Name                    string
	Images, Videos              []string
	VoiceID, Style, Description string
	CreatedAt, UpdatedAt        time.Time
}
