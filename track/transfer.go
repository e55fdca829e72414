package track

import (
	"clapper/api"
	"clapper/internal/fsutil"
	"clapper/internal/textutil"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// transfer is one attempt at one file: where it goes, under the policy of
// its kind of media, and what to tell whom on the way.
type transfer struct {
	url, dir string
	part     string // the partial file's name in dir, resumed when present
	// others, when set, are the partial files of the same file that other
	// downloaders left, or may still be writing (one stopped past its
	// lease and taken over): the longest is copied to start from, never
	// written to, and all are removed once the file is whole.
	others  func(root *os.Root) []string
	base    string // the final name without its extension
	media   string // "video", "image" or "audio"
	limit   int64  // zero is the kind's cap
	replace bool   // base.ext replaces a file of that name (a cache)
	// started hears where the attempt starts and the whole length (0 when
	// unknown) before the first byte is written.
	started func(have, total int64) error
	// progress sees every byte written (nil: none).
	progress io.Writer
	// commit is asked just before the rename.
	commit func() error
}

// transfer makes one attempt at t: a partial file is resumed with a Range
// request, the attempt ends when nothing arrives for the idle timeout, and
// the file is renamed to its final name (the policy's extension) only when
// whole, flushed to the disk with its folder. It returns the final path and
// how long the file (or the partial file, on failure) is.
func (d *Downloader) transfer(ctx context.Context, t transfer) (string, int64, error) {
	if err := os.MkdirAll(t.dir, 0o755); err != nil {
		return "", 0, err
	}
	root, err := os.OpenRoot(t.dir)
	if err != nil {
		return "", 0, err
	}
	defer root.Close()
	limit := t.limit
	if limit <= 0 {
		limit = MaxBytes[t.media]
	}
	var have int64
	if st, err := root.Stat(t.part); err == nil {
		have = st.Size()
	} else if t.others != nil {
		if have, err = adopt(root, t.part, t.others(root)); err != nil {
			return "", 0, err
		}
	}
	// The attempt ends when nothing arrives for the idle timeout, from the
	// request on: waiting for headers and for each read alike.
	actx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	idle := d.idleTimeout()
	timer := time.AfterFunc(idle, func() { abort(errStalled) })
	defer timer.Stop()
	stalled := func(err error) error {
		if ctx.Err() == nil && errors.Is(context.Cause(actx), errStalled) {
			return fmt.Errorf("%w: nothing received for %s", errStalled, idle)
		}
		return err
	}
	req, err := http.NewRequestWithContext(actx, http.MethodGet, t.url, nil)
	if err != nil {
		return "", have, err
	}
	// The bytes as stored: a compressed answer would be inflated without
	// bound by the transport otherwise.
	req.Header.Set("Accept-Encoding", "identity")
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	hc := d.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", have, stalled(reasonFirst(err))
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
			t.discard(root) // what it started from too: the next attempt starts over
			return "", 0, fmt.Errorf("download: the server resumed at the wrong place (%s)", api.CleanLine(resp.Header.Get("Content-Range")))
		}
		flags |= os.O_APPEND
	case http.StatusForbidden, http.StatusGone, http.StatusNotFound:
		return "", have, ErrExpired
	case http.StatusRequestedRangeNotSatisfiable:
		// The part is whole or stale; the next attempt starts over.
		t.discard(root)
		return "", 0, fmt.Errorf("download: %s; starting over", resp.Status)
	default:
		return "", have, fmt.Errorf("download: %s", api.CleanLine(resp.Status))
	}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		_ = root.Remove(t.part)
		return "", 0, fmt.Errorf("%w (Content-Encoding %s); nothing was saved", errEncoded, textutil.Clip(api.CleanLine(enc), 40))
	}
	total := int64(0)
	if resp.ContentLength >= 0 {
		total = have + resp.ContentLength
		if total > limit {
			_ = root.Remove(t.part)
			return "", 0, tooLarge(t.media, total, limit)
		}
	}
	if t.started != nil {
		if err := t.started(have, total); err != nil {
			return "", have, err
		}
	}
	f, err := root.OpenFile(t.part, flags, 0o644)
	if err != nil {
		return "", have, err
	}
	counted := &countingWriter{w: f, n: have}
	var w io.Writer = counted
	if t.progress != nil {
		w = io.MultiWriter(counted, t.progress)
	}
	// One byte past the cap tells a file over it from one exactly at it.
	body := io.LimitReader(&idleReader{r: resp.Body, timer: timer, idle: idle}, limit-have+1)
	_, cerr := io.Copy(w, body)
	if cerr == nil {
		cerr = f.Sync()
	}
	if err := f.Close(); cerr == nil {
		cerr = err
	}
	if cerr != nil {
		return "", counted.n, stalled(cerr)
	}
	if counted.n > limit {
		_ = root.Remove(t.part)
		return "", 0, tooLarge(t.media, counted.n, limit)
	}
	// Whole means as long as the server said, on the disk too: a partial
	// file someone else also wrote to is no result.
	if st, err := root.Stat(t.part); err != nil || st.Size() != counted.n || (total > 0 && counted.n != total) {
		_ = root.Remove(t.part)
		size := int64(-1)
		if err == nil {
			size = st.Size()
		}
		return "", 0, fmt.Errorf("download: the file is %d bytes on the disk, %d received, where the server said %d; starting over", size, counted.n, total)
	}
	if t.commit != nil {
		if err := t.commit(); err != nil {
			return "", counted.n, err
		}
	}
	ext := chooseExt(t.media, t.url, resp.Header.Get("Content-Type"), sniff(root, t.part))
	final := t.base + "." + ext
	if !t.replace {
		final = finalName(root, t.base, ext)
	}
	if err := root.Rename(t.part, final); err != nil {
		return "", counted.n, err
	}
	// Left by downloaders that were taken over: a stopped one that wakes
	// writes to a name no longer there.
	t.discard(root)
	if err := fsutil.SyncRootDir(root); err != nil {
		return "", counted.n, err
	}
	return filepath.Join(t.dir, final), counted.n, nil
}

// discard removes the partial file and those it may have started from.
func (t transfer) discard(root *os.Root) {
	_ = root.Remove(t.part)
	if t.others != nil {
		for _, name := range t.others(root) {
			_ = root.Remove(name)
		}
	}
}

// adopt starts part from the longest of others: its bytes are copied (a
// downloader that was taken over may still write to its own file, so it is
// never renamed or appended to). The bytes copied are a true beginning of
// the file whatever that one does meanwhile: it writes in order, and only
// at its end. It returns how long part is.
func adopt(root *os.Root, part string, others []string) (int64, error) {
	longest, size := "", int64(0)
	for _, name := range others {
		if st, err := root.Stat(name); err == nil && st.Mode().IsRegular() && st.Size() > size {
			longest, size = name, st.Size()
		}
	}
	if longest == "" {
		return 0, nil
	}
	src, err := root.Open(longest)
	if err != nil {
		return 0, nil // gone meanwhile: start from nothing
	}
	defer src.Close()
	dst, err := root.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(dst, io.LimitReader(src, size))
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = root.Remove(part)
		return 0, err
	}
	return n, nil
}

// countingWriter counts what reaches the file.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// permanent reports a failure that another attempt would only repeat.
func permanent(err error) bool {
	return errors.Is(err, errTooLarge) || errors.Is(err, errEncoded) || errors.Is(err, errClaimLost)
}

// idleReader pushes the idle deadline back whenever bytes arrive.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(r.idle)
	}
	return n, err
}

// reasonFirst says why a request failed before where it went: Go's
// `Get "https://…/a-long-signed-url": dial tcp …: connection refused` is
// cut at a line's end before its reason. The host stays (which server),
// the URL's path and query do not (a signed URL's are long and useless);
// the *url.Error is still there for errors.As.
func reasonFirst(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	host := ue.URL
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		host = u.Host
	}
	return &requestError{ue: ue, host: host}
}

// requestError is a failed request as reasonFirst words it.
type requestError struct {
	ue   *url.Error
	host string
}

func (e *requestError) Error() string { return fmt.Sprintf("%v (from %s)", e.ue.Err, e.host) }
func (e *requestError) Unwrap() error { return e.ue }
