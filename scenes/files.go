package scenes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// FreshURL re-reads the job and returns the signed URL of version id (the
// job's composed video when id is ""), which then lives under three
// minutes: call it just before opening, copying or fetching the video.
func (s *Service) FreshURL(ctx context.Context, jobID, id string) (string, record.Job, error) {
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
	if d := v.Download; d != nil && d.Status == record.DownloadDone {
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
	path := filepath.Join(dir, track.VersionFileName(created, jobID, versionPart(j, id)))
	claimed, err := s.Store.StartVersionDownload(ctx, jobID, id, path, staleClaim)
	if err != nil {
		return "", err
	}
	if !claimed {
		if j, err := s.Store.Job(ctx, jobID); err == nil {
			if _, v, ok := Find(j, id); ok && v.Download != nil && v.Download.Status == record.DownloadDone {
				return v.Download.Path, nil
			}
		}
		return "", ErrSaving
	}
	saved, n, err := s.fetchVersion(ctx, jobID, id, path)
	why := err
	if err != nil && ctx.Err() != nil {
		why = errStopped // its partial file stays for ResumeDownloads
	}
	// The outcome is recorded even when ctx ended: the claim must not hold.
	if ferr := s.Store.FinishVersionDownload(context.WithoutCancel(ctx), id, saved, n, why); err == nil {
		err = ferr
	}
	return saved, err
}

// versionPart names a version in its file name: scene2_v3 for the third
// version of the second scene, cut_v1 for the first composition.
func versionPart(j record.Job, id string) string {
	for _, rec := range j.Scenes {
		if l := VersionLabel(rec, id); l != id {
			return "scene" + strconv.Itoa(rec.Index+1) + "_" + l
		}
	}
	for i, rec := range j.Compose {
		for k, v := range rec.Jobs {
			if v.ID == id && len(j.Compose) == 1 {
				return fmt.Sprintf("cut_v%d", k+1)
			} else if v.ID == id {
				return fmt.Sprintf("cut%d_v%d", i+1, k+1)
			}
		}
	}
	return id
}

// errStopped is the recorded outcome of a save stopped half way (Ctrl-C, a
// closed TUI): the one kind of failure the next clapper watch resumes.
var errStopped = errors.New("stopped before the video was whole; clapper watch finishes it")

// fetchVersion saves the version's video with the one downloader, under
// the name path gives (the policy settles its extension). Every attempt
// re-reads the job for a fresh URL: a signed one lives under three minutes.
func (s *Service) fetchVersion(ctx context.Context, jobID, id, path string) (string, int64, error) {
	return s.downloader().Save(ctx, track.File{
		Media: track.MediaOf(api.OpGeneralOneClick),
		Dir:   filepath.Dir(path),
		Base:  strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)),
		URL: func(ctx context.Context, _ bool) (string, error) {
			url, _, err := s.FreshURL(ctx, jobID, id)
			return url, err
		},
	})
}

func (s *Service) downloader() *track.Downloader {
	if s.Downloader != nil {
		return s.Downloader
	}
	return &track.Downloader{}
}

// ResumeDownloads finishes every save of a version that was stopped half
// way or left running by a run that died (after staleClaim), from its
// partial file, and returns where they were saved: clapper watch calls it.
// A save that failed for a reason (the URL gone, the file over the cap) is
// left for the user to try again, so that watch does not fail on it for
// ever.
func (s *Service) ResumeDownloads(ctx context.Context) ([]string, error) {
	unfinished, err := s.Store.UnfinishedVersionDownloads(ctx, staleClaim)
	if err != nil {
		return nil, err
	}
	var saved []string
	var errs []error
	for _, d := range unfinished {
		if d.Status == record.DownloadFailed && d.Error != errStopped.Error() {
			continue
		}
		path, err := s.Download(ctx, d.Job, d.SubJob, filepath.Dir(d.Path))
		switch {
		case errors.Is(err, ErrSaving):
		case err != nil:
			if ctx.Err() != nil {
				return saved, ctx.Err()
			}
			errs = append(errs, fmt.Errorf("version %s of job %s: %w", d.SubJob, d.Job, err))
		default:
			saved = append(saved, path)
		}
	}
	return saved, errors.Join(errs...)
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
