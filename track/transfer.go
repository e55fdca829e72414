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
	base     string // the final name without its extension
	media    string // "video", "image" or "audio"
	limit    int64  // zero is the kind's cap
	replace  bool   // base.ext replaces a file of that name (a cache)
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
		return "", have, stalled(err)
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
			_ = root.Remove(t.part)
			return "", 0, fmt.Errorf("download: the server resumed at the wrong place (%s)", api.CleanLine(resp.Header.Get("Content-Range")))
		}
		flags |= os.O_APPEND
	case http.StatusForbidden, http.StatusGone, http.StatusNotFound:
		return "", have, ErrExpired
	case http.StatusRequestedRangeNotSatisfiable:
		// The part is whole or stale; the next attempt starts over.
		_ = root.Remove(t.part)
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
	if err := fsutil.SyncRootDir(root); err != nil {
		return "", counted.n, err
	}
	return filepath.Join(t.dir, final), counted.n, nil
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
