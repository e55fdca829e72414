package record

import "time"

// JobSummary is one multi-scene job as the Scenes page lists it.
type JobSummary struct {
	LocalID   int64 // 0 for a job read by id that is no task of this history
	JobID     string
	Prompt    string
	State     string // the task's state, else the job's
	ErrCode   string
	Scenes    int // scene records
	Versions  int // scene versions, all scenes together
	Busy      int // records whose newest version is still being made
	CreatedAt time.Time
}

// VersionDownload is the file saved (or being saved) of one version.
type VersionDownload struct {
	Job       string
	SubJob    string
	Path      string
	Status    DownloadStatus // running, done or failed
	Bytes     int64
	Error     string
	UpdatedAt time.Time
}
