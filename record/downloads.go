package record

import (
	"clapper/api"
	"time"
)

// URLKind names one of the URLs of a creation.
type URLKind string

// DownloadStatus is where a download stands.
type DownloadStatus string

const (
	DownloadQueued  DownloadStatus = "queued"
	DownloadRunning DownloadStatus = "running"
	DownloadDone    DownloadStatus = "done"
	DownloadFailed  DownloadStatus = "failed"
	// DownloadExpired: the signed URL lapsed before the file was fetched.
	DownloadExpired DownloadStatus = "expired"
)

// Download is one file to fetch, with the current URL and expiry of the
// creation it comes from (joined, so a refreshed URL is seen at once).
type Download struct {
	ID        int64
	LocalID   int64
	TaskID    string
	Operation api.Operation
	Index     int
	Kind      URLKind
	URL       string
	ExpiresAt time.Time
	Path      string
	Bytes     int64
	Total     int64 // zero while unknown
	Status    DownloadStatus
	Error     string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Owner is the downloader that claimed it (empty when nobody holds it);
	// the claim holds until LeaseUntil unless the owner renews it.
	Owner      string
	LeaseUntil time.Time
}

// Settled reports a download that will not change unless queued again.
func (d Download) Settled() bool {
	return d.Status != DownloadQueued && d.Status != DownloadRunning
}

// DownloadProgress is a report from the downloader.
type DownloadProgress struct {
	Status DownloadStatus
	Path   string // empty keeps the queued path (the final name may differ)
	Bytes  int64
	Total  int64
	Error  string
	// Owner, when set, applies the report only while that downloader holds
	// the claim (else ErrConflict), so a downloader that lost its claim never
	// overwrites the report of the one that took over.
	Owner string
}

const (
	KindURL         URLKind = "url"
	KindCover       URLKind = "cover"
	KindWatermarked URLKind = "watermarked"
)
