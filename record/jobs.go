package record

import "time"

// Job is a multi-scene job as last read from the service.
type Job struct {
	ID                 string
	LocalID            int64 // the general_one_click task in the history; 0 when absent
	Type               string
	CreatorID          string
	State              string
	Input              string
	ErrCode            string
	ErrMsg             string
	SignedURL          string
	SignedURLExpiresAt time.Time   // zero without a URL
	CreatedAt          time.Time   // the service's
	UpdatedAt          time.Time   // the service's
	FetchedAt          time.Time   // when the store received this record
	Scenes             []JobRecord // generate_video records by index
	Compose            []JobRecord // compose records by index
	// Choices maps a scene's index to the version the user chose for the
	// next composition (ChooseVersion); a scene without one takes its
	// newest successful version.
	Choices map[int]string
	Raw     []byte
}

// JobRecord is a scene or the composition with its versions, oldest first.
type JobRecord struct {
	Type  string
	Index int
	Jobs  []SubJob
}

// Current is the newest version, the one a compose would use; the zero
// SubJob when the record has none.
func (r JobRecord) Current() SubJob {
	if len(r.Jobs) == 0 {
		return SubJob{}
	}
	return r.Jobs[len(r.Jobs)-1]
}

// SubJob is one version of a scene or of the composition.
type SubJob struct {
	ID                 string
	Type               string
	State              string
	Index              int
	Prompt             string // scene input
	LyricText          string // scene input
	Duration           int    // scene input, seconds
	Images             []string
	Input              string
	Output             string
	ErrCode            string
	ErrMsg             string
	SignedURL          string
	SignedURLExpiresAt time.Time // zero without a URL
	CreatedAt          time.Time
	UpdatedAt          time.Time
	// Download is the file saved of this version, if any (SaveVersionFile).
	Download *VersionDownload
}
