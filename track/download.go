package track

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"clapper/api"
	"clapper/record"
)

// Downloader saves results before their URLs expire: into a temp file that
// is renamed when complete (a partial file never looks finished), resuming
// a partial one with a Range request, confined to its folder by os.Root. An
// expired URL is re-read from the service, which signs finished results
// afresh; when that fails the download is marked expired.
//
// A transfer that receives nothing for IdleTimeout is abandoned and resumed
// with a Range request, so a server that sends headers and then stalls
// never hangs a download. Each file is fetched by exactly one process: a
// download is claimed in the history before it starts (history's
// ClaimDownload) and the claim's lease is renewed while it runs. The next
// downloader, in any process, takes over the download of a holder that is
// gone and resumes its partial file: at once when the holder was a process
// of this machine that no longer runs (killed), else when its lease lapsed.
// A live holder is waited for (Settle), never doubled.
type Downloader struct {
	Store  Store
	Client *api.Client
	HTTP   *http.Client
	// DirFor names the folder of an operation's results.
	DirFor func(op api.Operation) string
	Clock  Clock
	// Emit reports progress (to the studio, which hands it on to the front end).
	Emit func(Event)
	// Workers is how many files download at once (default 2).
	Workers int
	// Owner names this downloader in its claims (default: host, process id
	// and a random part, so no two downloaders share one).
	Owner string
	// Lease is how long a claim holds unless renewed (default 30 s); it is
	// renewed every third of it, so a hung process's downloads are taken
	// over within one Lease.
	Lease time.Duration
	// IdleTimeout abandons a transfer that received no byte for this long
	// (default 30 s); the next attempt resumes where it stopped.
	IdleTimeout time.Duration

	ownerOnce sync.Once
	mu        sync.Mutex
	kick      chan struct{}
}

// Defaults of the Downloader's timing.
const (
	DefaultLease       = 30 * time.Second
	DefaultIdleTimeout = 30 * time.Second
)

func (d *Downloader) owner() string {
	d.ownerOnce.Do(func() {
		if d.Owner == "" {
			d.Owner = newToken()
		}
	})
	return d.Owner
}

// hostname names this machine in owner tokens (newToken): its host name,
// and a hash of the system's machine id where it keeps one. Computers of
// one team often share a host name (a laptop's default): tokens that named
// the host alone would make each copy take the other's live processes for
// dead ones of its own (ownerGone), and take over its poller lease, its
// downloads and its requests being sent at once.
var hostname = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return hostToken(h, machineIDFiles)
})

// machineIDFiles hold the system's machine id (systemd's, then D-Bus's).
var machineIDFiles = []string{"/etc/machine-id", "/var/lib/dbus/machine-id"}

// hostToken is host (no slash: tokens are split at them) with a hash of
// the first machine id found in idFiles; the id itself is not shared.
func hostToken(host string, idFiles []string) string {
	host = strings.ReplaceAll(host, "/", "_")
	for _, f := range idFiles {
		b, err := os.ReadFile(f)
		if id := strings.TrimSpace(string(b)); err == nil && id != "" {
			sum := sha256.Sum256([]byte(id))
			return host + "~" + hex.EncodeToString(sum[:4])
		}
	}
	return host
}

// ownerGone reports an owner token of a process of this machine that no
// longer runs (killed): its downloads need not wait for its lease to lapse.
func ownerGone(owner string) bool {
	parts := strings.Split(owner, "/")
	if len(parts) != 3 || parts[0] != hostname() {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	return err == nil && pid > 0 && pid != os.Getpid() && !processRuns(pid)
}

// held reports a download that a live downloader holds.
func (d *Downloader) held(dl record.Download) bool {
	return dl.Owner != "" && dl.LeaseUntil.After(d.now()) && !ownerGone(dl.Owner)
}

func (d *Downloader) lease() time.Duration {
	if d.Lease > 0 {
		return d.Lease
	}
	return DefaultLease
}

func (d *Downloader) idleTimeout() time.Duration {
	if d.IdleTimeout > 0 {
		return d.IdleTimeout
	}
	return DefaultIdleTimeout
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// QueueResults queues every result file of a finished task.
func (d *Downloader) QueueResults(ctx context.Context, taskID string, op api.Operation, created time.Time, res *api.TaskResult) error {
	for i, c := range res.Creations {
		if c.URL == "" {
			continue
		}
		name := FileName(created, op, taskID, i, c.URL)
		if _, err := d.Store.QueueDownload(ctx, taskID, i, record.KindURL, filepath.Join(d.DirFor(op), name)); err != nil {
			return err
		}
	}
	d.poke()
	return nil
}

// QueueCovers queues the cover image of each result that has one, named
// like its result with "cover" after the task id, in the same folder.
func (d *Downloader) QueueCovers(ctx context.Context, taskID string, op api.Operation, created time.Time, res *api.TaskResult) error {
	for i, c := range res.Creations {
		if c.CoverURL == "" {
			continue
		}
		name := FileName(created, op, taskID+"-cover", i, c.CoverURL)
		if _, err := d.Store.QueueDownload(ctx, taskID, i, record.KindCover, filepath.Join(d.DirFor(op), name)); err != nil {
			return err
		}
	}
	d.poke()
	return nil
}

func (d *Downloader) poke() {
	d.mu.Lock()
	if d.kick == nil {
		d.kick = make(chan struct{}, 1)
	}
	k := d.kick
	d.mu.Unlock()
	select {
	case k <- struct{}{}:
	default:
	}
}

// Run downloads whatever is queued (also what an earlier run left) until
// ctx ends.
func (d *Downloader) Run(ctx context.Context) error {
	d.poke()
	for {
		d.mu.Lock()
		k := d.kick
		d.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-k:
		case <-time.After(time.Minute):
		}
		if err := d.RunPending(ctx); err != nil && ctx.Err() == nil {
			d.emit(Event{Kind: EventDownload, Err: err, At: d.now()})
		}
	}
}

// RunPending downloads every pending file that no live process holds and
// returns when they are done.
func (d *Downloader) RunPending(ctx context.Context) error {
	return d.runPending(ctx, func(record.Download) bool { return true })
}

// Interrupted lists the pending downloads that no live process holds: queued
// ones nobody started, those whose holder stopped renewing its claim, and
// those of a process of this machine that no longer runs (killed).
func (d *Downloader) Interrupted(ctx context.Context) ([]record.Download, error) {
	pending, err := d.Store.PendingDownloads(ctx)
	if err != nil {
		return nil, err
	}
	var out []record.Download
	for _, dl := range pending {
		if !d.held(dl) {
			out = append(out, dl)
		}
	}
	return out, nil
}

// Settle downloads the pending files of a task and returns its downloads
// once none is pending. A file another process holds is waited for (and
// taken over if that process stops renewing its claim), so two processes
// that follow one task save each result once and both report it.
func (d *Downloader) Settle(ctx context.Context, taskID string) ([]record.Download, error) {
	poll := min(d.lease()/3, time.Second)
	for {
		if err := d.runPending(ctx, func(dl record.Download) bool { return dl.TaskID == taskID }); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dls, err := d.Store.Downloads(ctx, taskID)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(dls, func(dl record.Download) bool { return !dl.Settled() }) {
			return dls, nil
		}
		if err := api.SleepContext(ctx, poll); err != nil {
			return nil, err
		}
	}
}

func (d *Downloader) runPending(ctx context.Context, want func(record.Download) bool) error {
	pending, err := d.Store.PendingDownloads(ctx)
	if err != nil {
		return err
	}
	workers := d.Workers
	if workers <= 0 {
		workers = 2
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, p := range pending {
		if !want(p) || d.held(p) {
			continue
		}
		// A worker first, then the claim: a claim is never held by a
		// download that waits for a worker, which another process could
		// be fetching meanwhile.
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		var dl record.Download
		if p.Owner != "" && p.LeaseUntil.After(d.now()) {
			dl, err = d.Store.TakeOverDownload(ctx, p.ID, p.Owner, d.owner(), d.lease())
		} else {
			dl, err = d.Store.ClaimDownload(ctx, p.ID, d.owner(), d.lease())
		}
		if err != nil {
			<-sem
			if !errors.Is(err, record.ErrConflict) && ctx.Err() == nil {
				d.emit(Event{Kind: EventDownload, TaskID: p.TaskID, Operation: p.Operation, Err: err, At: d.now()})
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			d.download(ctx, dl)
		}()
	}
	return nil
}

// keepClaim renews the claim on download id until ctx ends, and ends the
// download through lost when another downloader took it over (this process
// stalled for longer than a lease).
func (d *Downloader) keepClaim(ctx context.Context, id int64, lost context.CancelCauseFunc) {
	t := time.NewTicker(d.lease() / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// Any other failure (a busy database) is tried again at the next
		// tick: the lease has two more thirds to run.
		if err := d.Store.RenewDownload(ctx, id, d.owner(), d.lease()); errors.Is(err, record.ErrConflict) || errors.Is(err, record.ErrNotFound) {
			lost(errClaimLost)
			return
		}
	}
}

// defaultHTTP bounds the wait for a server's answer; a download itself may
// take as long as the file needs.
// It carries no credentials (the API key goes to the service only, never to
// a result's host) and never decompresses (see the policy).
var defaultHTTP = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	ResponseHeaderTimeout: 30 * time.Second,
	IdleConnTimeout:       90 * time.Second,
	DisableCompression:    true,
}}

// ErrExpired is a URL the server no longer honours (403, 404 or 410).
var ErrExpired = errors.New("the result URL has expired")

// errStalled is a transfer that received nothing for the idle timeout.
var errStalled = errors.New("download stalled")

// errClaimLost is a download another downloader took over.
var errClaimLost = errors.New("download: another downloader took this file over")

// attempts bounds how often one file is tried in a run: a dropped
// connection resumes where it stopped.
const attempts = 3

// retryTransfer is the one way a file is fetched again, for downloads and
// saves alike: up to attempts tries of try (which answers how far the file
// got); a try that got further than any before it broke off (a stall, a
// dropped connection) is not a failed one; a lapsed signature or a host
// that is gone is signed anew once (refresh, which answers the error to end
// with, or nil to go on); a pause of try × retryPause between tries, none
// after the last.
func retryTransfer(ctx context.Context, try func() (int64, error), refresh func(last error) error) error {
	var err error
	refreshed := false
	best := int64(-1) // the furthest the file got after an attempt
	for n := 1; n <= attempts; n++ {
		var got int64
		got, err = try()
		if err == nil || ctx.Err() != nil || permanent(err) {
			return err
		}
		if best >= 0 && got > best {
			n--
		}
		best = max(best, got)
		if errors.Is(err, ErrExpired) || unreachable(err) {
			if refreshed {
				return err
			}
			refreshed = true
			if ferr := refresh(err); ferr != nil {
				return ferr
			}
			continue
		}
		if n < attempts {
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(n) * retryPause):
			}
		}
	}
	return err
}

// download fetches a claimed download, keeping the claim while it runs.
func (d *Downloader) download(ctx context.Context, dl record.Download) {
	ctx, cancel := context.WithCancelCause(ctx)
	renewing := make(chan struct{})
	id := dl.ID
	go func() { defer close(renewing); d.keepClaim(ctx, id, cancel) }()
	defer func() { cancel(nil); <-renewing }()

	if !dl.ExpiresAt.IsZero() && !d.now().Before(dl.ExpiresAt) {
		dl, _ = d.refresh(ctx, dl)
	}
	err := retryTransfer(ctx, func() (int64, error) { return d.fetch(ctx, dl) }, func(last error) error {
		// A lapsed signature, or a host that is gone (an embedded
		// sandbox's port from an earlier run): the service signs anew.
		var rerr error
		if dl, rerr = d.refresh(ctx, dl); rerr != nil {
			return last
		}
		return nil
	})
	switch {
	case err == nil:
		return
	case errors.Is(err, errClaimLost) || errors.Is(context.Cause(ctx), errClaimLost):
		// The one that took it over reports it.
		d.emit(Event{Kind: EventDownload, TaskID: dl.TaskID, Operation: dl.Operation, Err: errClaimLost, At: d.now()})
	case ctx.Err() != nil:
		// Stopped: the partial file stays and the next run resumes it.
		d.update(context.WithoutCancel(ctx), dl, record.DownloadProgress{Status: record.DownloadQueued, Bytes: dl.Bytes, Total: dl.Total})
	case errors.Is(err, ErrExpired):
		removePart(dl.Path, d.owner())
		d.update(ctx, dl, record.DownloadProgress{Status: record.DownloadExpired, Bytes: dl.Bytes, Total: dl.Total, Error: "the result URL expired and the service did not sign a new one"})
	default:
		// Failed for good: no partial file is left behind (a stopped one
		// stays, and the next run resumes it).
		removePart(dl.Path, d.owner())
		d.update(ctx, dl, record.DownloadProgress{Status: record.DownloadFailed, Bytes: dl.Bytes, Total: dl.Total, Error: err.Error()})
	}
}

// A download has exactly one writer: each downloader writes its own
// partial file (.NAME.OWNER.part, OWNER a digest of its lease token), so a
// downloader stopped past its lease that wakes after another took the file
// over writes to its own file, never into the other's; the one taking over
// starts from a copy of the longest it finds (adopt).

// partName is owner's partial file of the download queued at path.
func partName(path, owner string) string {
	sum := sha256.Sum256([]byte(owner))
	return "." + filepath.Base(path) + "." + hex.EncodeToString(sum[:6]) + ".part"
}

// otherParts are the partial files of the download queued at path that
// are not owner's: other downloaders', and the one name every downloader
// shared before (.NAME.part).
func otherParts(root *os.Root, path, owner string) []string {
	base, mine := filepath.Base(path), partName(path, owner)
	names := []string{"." + base + ".part"}
	if entries, err := fs.Glob(root.FS(), "."+globEscape(base)+".*.part"); err == nil {
		names = append(names, entries...)
	}
	return slices.DeleteFunc(names, func(n string) bool { return n == mine })
}

// globEscape quotes the pattern characters of a file name.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

// removePart deletes owner's partial file of a download that will not be
// resumed, inside its folder only.
func removePart(queued, owner string) {
	root, err := os.OpenRoot(filepath.Dir(queued))
	if err != nil {
		return
	}
	defer root.Close()
	_ = root.Remove(partName(queued, owner))
}

// unreachable reports a URL whose host refuses connections.
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// retryPause spaces the attempts at one file (tests shorten it).
var retryPause = time.Second

// refresh re-reads the task, which records freshly signed URLs, and returns
// the download with its new URL.
func (d *Downloader) refresh(ctx context.Context, dl record.Download) (record.Download, error) {
	res, err := d.Client.Get(ctx, dl.TaskID)
	if err != nil {
		return dl, err
	}
	if _, err := d.Store.ApplyResult(ctx, dl.TaskID, updateFrom(res, d.now())); err != nil {
		return dl, err
	}
	if dl.Index >= len(res.Creations) || res.Creations[dl.Index].URL == "" {
		return dl, ErrExpired
	}
	dl.URL = res.Creations[dl.Index].URL
	dl.ExpiresAt = d.now().Add(URLValidity(res))
	return dl, nil
}

// fetch makes one attempt at dl and returns how long the partial file is
// when it ends.
func (d *Downloader) fetch(ctx context.Context, dl record.Download) (int64, error) {
	pw := &progressWriter{d: d, dl: dl, ctx: ctx}
	done, n, err := d.transfer(ctx, transfer{
		url: dl.URL, dir: filepath.Dir(dl.Path), part: partName(dl.Path, d.owner()),
		others: func(root *os.Root) []string { return otherParts(root, dl.Path, d.owner()) },
		base:   strings.TrimSuffix(filepath.Base(dl.Path), path.Ext(dl.Path)), media: MediaOf(dl.Operation),
		started: func(have, total int64) error {
			pw.bytes, pw.total = have, total
			err := d.update(ctx, dl, record.DownloadProgress{Status: record.DownloadRunning, Bytes: have, Total: total})
			if errors.Is(err, record.ErrConflict) {
				return errClaimLost
			}
			return nil
		},
		progress: pw,
		// The file is renamed only while this downloader still holds it.
		commit: func() error {
			err := d.Store.RenewDownload(ctx, dl.ID, d.owner(), d.lease())
			if errors.Is(err, record.ErrConflict) {
				return errClaimLost
			}
			return err
		},
	})
	if err != nil {
		return n, err
	}
	d.update(ctx, dl, record.DownloadProgress{Status: record.DownloadDone, Path: done, Bytes: n, Total: n})
	return n, nil
}

// update records p as long as this downloader holds dl; an error is also
// reported as an event.
func (d *Downloader) update(ctx context.Context, dl record.Download, p record.DownloadProgress) error {
	p.Owner = d.owner()
	if err := d.Store.UpdateDownload(ctx, dl.ID, p); err != nil {
		d.emit(Event{Kind: EventDownload, TaskID: dl.TaskID, Operation: dl.Operation, Err: err, At: d.now()})
		return err
	}
	dl.Status, dl.Bytes, dl.Total, dl.Error = p.Status, p.Bytes, p.Total, p.Error
	if p.Path != "" {
		dl.Path = p.Path
	}
	d.emit(Event{Kind: EventDownload, TaskID: dl.TaskID, Operation: dl.Operation, Download: &dl, At: d.now()})
	return nil
}

func (d *Downloader) emit(e Event) {
	if d.Emit != nil {
		d.Emit(e)
	}
}

func (d *Downloader) now() time.Time {
	if d.Clock == nil {
		return time.Now()
	}
	return d.Clock.Now()
}

// progressWriter reports a running download every 256 KiB.
type progressWriter struct {
	ctx          context.Context
	d            *Downloader
	dl           record.Download
	bytes, total int64
	reported     int64
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.bytes += int64(len(b))
	if p.bytes-p.reported >= 256<<10 {
		p.reported = p.bytes
		err := p.d.update(p.ctx, p.dl, record.DownloadProgress{Status: record.DownloadRunning, Bytes: p.bytes, Total: p.total})
		if errors.Is(err, record.ErrConflict) {
			return 0, errClaimLost
		}
	}
	return len(b), nil
}
