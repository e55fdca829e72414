package scenes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/track"
	"clapper/history"
)

// FreshURL re-reads the job and returns the signed URL of version id (the
// job's composed video when id is ""), which then lives under three
// minutes: call it just before opening, copying or fetching the video.
func (s *Service) FreshURL(ctx context.Context, jobID, id string) (string, history.Job, error) {
	j, err := s.Refresh(ctx, jobID)
	if err != nil {
		return "", j, fmt.Errorf("re-reading job %s for a fresh URL: %w", jobID, err)
	}
	if id == "" {
		if j.SignedURL == "" {
			return "", j, fmt.Errorf("job %s has no composed video yet (%s)", jobID, api.DescribeState(j.State))
		}
		return j.SignedURL, j, nil
	}
	_, v, ok := Find(j, id)
	switch {
	case !ok:
		return "", j, inputErr("%s is not a version of job %s", id, jobID)
	case v.SignedURL == "":
		return "", j, fmt.Errorf("version %s has no video (%s)", id, api.DescribeState(v.State))
	}
	return v.SignedURL, j, nil
}

// staleClaim is how long a download another run started may go unfinished
// before this one takes it over (one video of a few seconds takes far less).
const staleClaim = 10 * time.Minute

// ErrSaving is a download of the version that another run has under way.
var ErrSaving = errors.New("this version is being saved already")

// Download saves the video of version id of a job into dir ("" is the
// configured folder) and returns where. A version saved before is not
// fetched again: its file is returned.
func (s *Service) Download(ctx context.Context, jobID, id, dir string) (string, error) {
	j, err := s.Load(ctx, jobID)
	if err != nil {
		return "", err
	}
	_, v, ok := Find(j, id)
	if !ok {
		if j, err = s.Refresh(ctx, jobID); err != nil {
			return "", err
		}
		if _, v, ok = Find(j, id); !ok {
			return "", inputErr("%s is not a version of job %s", id, jobID)
		}
	}
	if d := v.Download; d != nil && d.Status == history.DownloadDone {
		_, err := os.Stat(d.Path)
		switch {
		case err == nil:
			return d.Path, nil
		case errors.Is(err, fs.ErrNotExist):
			// Deleted or moved away: while the row says done no run can
			// claim the download, and the version would never be saved again.
			if err := s.Store.LostVersionDownload(ctx, id, d.Path); err != nil {
				return "", err
			}
		default:
			return "", fmt.Errorf("checking the saved file of version %s: %w", id, err)
		}
	}
	if v.State != api.StateSuccess {
		return "", fmt.Errorf("version %s is %s: only a finished version has a video", id, api.DescribeState(v.State))
	}
	if dir == "" {
		dir = s.DirFor(api.OpGeneralOneClick)
	}
	created := v.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	path := filepath.Join(dir, track.FileName(created, api.OpGeneralOneClick, id, 0, ""))
	claimed, err := s.Store.StartVersionDownload(ctx, jobID, id, path, staleClaim)
	if err != nil {
		return "", err
	}
	if !claimed {
		if j, err := s.Store.Job(ctx, jobID); err == nil {
			if _, v, ok := Find(j, id); ok && v.Download != nil && v.Download.Status == history.DownloadDone {
				return v.Download.Path, nil
			}
		}
		return "", ErrSaving
	}
	saved, n, err := s.fetchVersion(ctx, jobID, id, path)
	// The outcome is recorded even when ctx ended: the claim must not hold.
	if ferr := s.Store.FinishVersionDownload(context.WithoutCancel(ctx), id, saved, n, err); err == nil {
		err = ferr
	}
	return saved, err
}

// fetchVersion fetches a fresh URL of the version into path: a temp file in
// the folder (confined by os.Root), renamed when complete; an existing file
// of that name is never overwritten.
func (s *Service) fetchVersion(ctx context.Context, jobID, id, path string) (string, int64, error) {
	url, _, err := s.FreshURL(ctx, jobID, id)
	if err != nil {
		return "", 0, err
	}
	dir, name := filepath.Dir(path), filepath.Base(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", 0, err
	}
	defer root.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	hc := s.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("the video's URL answered %s", resp.Status)
	}
	part := "." + name + ".part"
	f, err := root.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", 0, err
	}
	n, err := io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(part)
		return "", n, err
	}
	final := freeName(root, name)
	if err := root.Rename(part, final); err != nil {
		return "", n, err
	}
	return filepath.Join(dir, final), n, nil
}

// defaultHTTP bounds the wait for the server's answer; the video itself may
// take as long as it needs.
var defaultHTTP = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	ResponseHeaderTimeout: 30 * time.Second,
}}

// freeName is name, or name (2), name (3)… when a file has it.
func freeName(root *os.Root, name string) string {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	candidate := name
	for i := 2; ; i++ {
		if _, err := root.Stat(candidate); errors.Is(err, os.ErrNotExist) {
			return candidate
		}
		candidate = fmt.Sprintf("%s (%d)%s", base, i, ext)
	}
}

// AutoDownload saves every finished composition of the job not saved yet,
// and returns where. The job's first composition is left out when the job
// is a task of the history: it is the task's own result, saved like any
// task's.
func (s *Service) AutoDownload(ctx context.Context, jobID string) ([]string, error) {
	j, err := s.Store.Job(ctx, jobID)
	if err != nil {
		return nil, err
	}
	var saved []string
	var errs []error
	for ri, rec := range j.Compose {
		for vi, v := range rec.Jobs {
			if (ri == 0 && vi == 0 && j.LocalID != 0) || v.State != api.StateSuccess || v.Download != nil {
				continue
			}
			path, err := s.Download(ctx, jobID, v.ID, "")
			switch {
			case errors.Is(err, ErrSaving):
			case err != nil:
				errs = append(errs, fmt.Errorf("composition %s: %w", v.ID, err))
			default:
				saved = append(saved, path)
			}
		}
	}
	return saved, errors.Join(errs...)
}
