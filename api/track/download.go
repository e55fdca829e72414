package track

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"clapper/api"
	"clapper/history"
)

// Downloader saves results before their URLs expire: into a temp file that
// is renamed when complete (a partial file never looks finished), resuming
// a partial one with a Range request, confined to its folder by os.Root. An
// expired URL is re-read from the service, which signs finished results
// afresh; when that fails the download is marked expired.
type Downloader struct {
	Store  Store
	Client *api.Client
	HTTP   *http.Client
	// DirFor names the folder of an operation's results.
	DirFor func(op api.Operation) string
	Clock  Clock
	// Emit reports progress (the watcher's Publish, so one stream reaches the UI).
	Emit func(Event)
	// Workers is how many files download at once (default 2).
	Workers int

	mu      sync.Mutex
	running map[int64]bool
	kick    chan struct{}
}

// MediaOf tells what an operation produces: "video", "image" or "audio".
func MediaOf(op api.Operation) string {
	switch op {
	case api.OpReference2Image:
		return "image"
	case api.OpAudioTTS, api.OpAudioClone, api.OpTiming2Audio:
		return "audio"
	}
	return "video"
}

// DefaultDirs puts results under ~/Videos/clapper, ~/Pictures/clapper or
// ~/Music/clapper when those folders exist, else under dataDir/downloads.
func DefaultDirs(dataDir string) func(api.Operation) string {
	home, _ := os.UserHomeDir()
	byMedia := map[string]string{"video": "Videos", "image": "Pictures", "audio": "Music"}
	return func(op api.Operation) string {
		if home != "" {
			if st, err := os.Stat(filepath.Join(home, byMedia[MediaOf(op)])); err == nil && st.IsDir() {
				return filepath.Join(home, byMedia[MediaOf(op)], "clapper")
			}
		}
		return filepath.Join(dataDir, "downloads")
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// FileName is <date>_<operation>_<task-id>_<n>.<ext>: never a name from the
// server, only its extension when it is a plain one.
func FileName(created time.Time, op api.Operation, taskID string, index int, rawURL string) string {
	id := unsafeName.ReplaceAllString(taskID, "")
	if id == "" {
		id = "task"
	}
	return fmt.Sprintf("%s_%s_%s_%d.%s", created.UTC().Format("2006-01-02"), unsafeName.ReplaceAllString(string(op), ""), clipName(id, 64), index+1, extension(rawURL, op))
}

func clipName(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

var plainExt = regexp.MustCompile(`^[a-z0-9]{2,5}$`)

func extension(rawURL string, op api.Operation) string {
	u := rawURL
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if ext := strings.ToLower(strings.TrimPrefix(path.Ext(u), ".")); plainExt.MatchString(ext) {
		return ext
	}
	return map[string]string{"video": "mp4", "image": "png", "audio": "wav"}[MediaOf(op)]
}

// QueueResults queues every result file of a finished task.
func (d *Downloader) QueueResults(ctx context.Context, taskID string, op api.Operation, created time.Time, res *api.TaskResult) error {
	for i, c := range res.Creations {
		if c.URL == "" {
			continue
		}
		name := FileName(created, op, taskID, i, c.URL)
		if _, err := d.Store.QueueDownload(ctx, taskID, i, history.KindURL, filepath.Join(d.DirFor(op), name)); err != nil {
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

// RunPending downloads every queued file and returns when they are done.
func (d *Downloader) RunPending(ctx context.Context) error {
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
	for _, dl := range pending {
		if !d.claim(dl.ID) {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(dl history.Download) {
			defer func() { <-sem; wg.Done(); d.release(dl.ID) }()
			d.download(ctx, dl)
		}(dl)
	}
	wg.Wait()
	return nil
}

func (d *Downloader) claim(id int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running == nil {
		d.running = map[int64]bool{}
	}
	if d.running[id] {
		return false
	}
	d.running[id] = true
	return true
}

func (d *Downloader) release(id int64) {
	d.mu.Lock()
	delete(d.running, id)
	d.mu.Unlock()
}

// defaultHTTP bounds the wait for a server's answer; a download itself may
// take as long as the file needs.
var defaultHTTP = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	ResponseHeaderTimeout: 30 * time.Second,
	IdleConnTimeout:       90 * time.Second,
}}

// errExpired is a URL the server no longer honours.
var errExpired = errors.New("the result URL has expired")

// attempts bounds how often one file is tried in a run: a dropped
// connection resumes where it stopped.
const attempts = 3

func (d *Downloader) download(ctx context.Context, dl history.Download) {
	if !dl.ExpiresAt.IsZero() && !d.now().Before(dl.ExpiresAt) {
		dl, _ = d.refresh(ctx, dl)
	}
	var err error
	refreshed := false
	for try := 1; try <= attempts; try++ {
		err = d.fetch(ctx, dl)
		if err == nil || ctx.Err() != nil {
			break
		}
		if errors.Is(err, errExpired) || unreachable(err) {
			// A lapsed signature, or a host that is gone (an embedded
			// sandbox's port from an earlier run): the service signs anew.
			if refreshed {
				break
			}
			refreshed = true
			var rerr error
			if dl, rerr = d.refresh(ctx, dl); rerr != nil {
				break
			}
			continue
		}
		if try < attempts {
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(try) * retryPause):
			}
		}
	}
	switch {
	case err == nil:
		return
	case ctx.Err() != nil:
		// Stopped: the partial file stays and the next run resumes it.
		d.update(context.WithoutCancel(ctx), dl, history.DownloadProgress{Status: history.DownloadQueued, Bytes: dl.Bytes, Total: dl.Total})
	case errors.Is(err, errExpired):
		d.update(ctx, dl, history.DownloadProgress{Status: history.DownloadExpired, Bytes: dl.Bytes, Total: dl.Total, Error: "the result URL expired and the service did not sign a new one"})
	default:
		d.update(ctx, dl, history.DownloadProgress{Status: history.DownloadFailed, Bytes: dl.Bytes, Total: dl.Total, Error: err.Error()})
	}
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
func (d *Downloader) refresh(ctx context.Context, dl history.Download) (history.Download, error) {
	res, err := d.Client.Get(ctx, dl.TaskID)
	if err != nil {
		return dl, err
	}
	if _, err := d.Store.ApplyResult(ctx, dl.TaskID, updateFrom(res, d.now())); err != nil {
		return dl, err
	}
	if dl.Index >= len(res.Creations) || res.Creations[dl.Index].URL == "" {
		return dl, errExpired
	}
	dl.URL = res.Creations[dl.Index].URL
	dl.ExpiresAt = d.now().Add(URLValidity(res))
	return dl, nil
}

func (d *Downloader) fetch(ctx context.Context, dl history.Download) error {
	dir, name := filepath.Dir(dl.Path), filepath.Base(dl.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	part := "." + name + ".part"
	var have int64
	if st, err := root.Stat(part); err == nil {
		have = st.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, dl.URL, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	hc := d.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	flags := os.O_WRONLY | os.O_CREATE
	switch resp.StatusCode {
	case http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
	case http.StatusPartialContent:
		// Append only where the server resumes exactly where the part ends.
		if !strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", have)) {
			_ = root.Remove(part)
			return fmt.Errorf("download: the server resumed at the wrong place (%s)", resp.Header.Get("Content-Range"))
		}
		flags |= os.O_APPEND
	case http.StatusForbidden, http.StatusGone, http.StatusNotFound:
		return errExpired
	case http.StatusRequestedRangeNotSatisfiable:
		// The part is whole or stale; the next attempt starts over.
		_ = root.Remove(part)
		return fmt.Errorf("download: %s; starting over", resp.Status)
	default:
		return fmt.Errorf("download: %s", resp.Status)
	}
	total := int64(0)
	if resp.ContentLength >= 0 {
		total = have + resp.ContentLength
	}
	f, err := root.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	pw := &progressWriter{d: d, dl: dl, bytes: have, total: total, ctx: ctx}
	d.update(ctx, dl, history.DownloadProgress{Status: history.DownloadRunning, Bytes: have, Total: total})
	_, cerr := io.Copy(f, io.TeeReader(resp.Body, pw))
	if err := f.Close(); cerr == nil {
		cerr = err
	}
	if cerr != nil {
		return cerr
	}
	final := finalName(root, name, resp.Header.Get("Content-Type"))
	if err := root.Rename(part, final); err != nil {
		return err
	}
	done := filepath.Join(dir, final)
	d.update(ctx, dl, history.DownloadProgress{Status: history.DownloadDone, Path: done, Bytes: pw.bytes, Total: pw.bytes})
	return nil
}

// mediaExt is the usual extension of each result content type; the
// system's mime table would offer rarities (.jfif for JPEG).
var mediaExt = map[string]string{
	"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp",
	"video/mp4": "mp4", "video/quicktime": "mov", "video/webm": "webm",
	"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/aac": "aac",
}

// finalName keeps the queued name unless the server's content type says
// the extension is wrong; an existing file of that name is never overwritten.
func finalName(root *os.Root, name, contentType string) string {
	if ct, _, err := mime.ParseMediaType(contentType); err == nil {
		if e := mediaExt[ct]; e != "" && strings.TrimPrefix(path.Ext(name), ".") != e {
			name = strings.TrimSuffix(name, path.Ext(name)) + "." + e
		}
	}
	base, ext := strings.TrimSuffix(name, path.Ext(name)), path.Ext(name)
	candidate := name
	for i := 2; ; i++ {
		if _, err := root.Stat(candidate); errors.Is(err, os.ErrNotExist) {
			return candidate
		}
		candidate = fmt.Sprintf("%s (%d)%s", base, i, ext)
	}
}

func (d *Downloader) update(ctx context.Context, dl history.Download, p history.DownloadProgress) {
	if err := d.Store.UpdateDownload(ctx, dl.ID, p); err != nil {
		d.emit(Event{Kind: EventDownload, TaskID: dl.TaskID, Operation: dl.Operation, Err: err, At: d.now()})
		return
	}
	dl.Status, dl.Bytes, dl.Total, dl.Error = p.Status, p.Bytes, p.Total, p.Error
	if p.Path != "" {
		dl.Path = p.Path
	}
	d.emit(Event{Kind: EventDownload, TaskID: dl.TaskID, Operation: dl.Operation, Download: &dl, At: d.now()})
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
	dl           history.Download
	bytes, total int64
	reported     int64
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.bytes += int64(len(b))
	if p.bytes-p.reported >= 256<<10 {
		p.reported = p.bytes
		p.d.update(p.ctx, p.dl, history.DownloadProgress{Status: history.DownloadRunning, Bytes: p.bytes, Total: p.total})
	}
	return len(b), nil
}
