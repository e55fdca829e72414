package studio

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// previewName keeps a preview's cache name to plain characters.
var previewName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// Preview returns a picture to show for key (a task's cover, a scene's
// first frame), fetched once from src into the data directory's preview
// cache by the one downloader: the picture's URL expires, the cache stays.
// DownloadFolders are the folders results are saved in, one per kind of
// media (or the one download folder set).
func (s *Studio) DownloadFolders() []string {
	var out []string
	for _, op := range api.Operations() {
		if dir := s.downloader.DirFor(op); dir != "" && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	return out
}

func (s *Studio) Preview(ctx context.Context, key, src string) (string, error) {
	return s.preview(ctx, key, src, func(context.Context) (string, error) { return src, nil })
}

// TaskPreview is Preview of a task's first result (its cover, or the
// image itself): a URL that fails (expired, or an embedded sandbox's port
// of an earlier run) is signed anew by one re-read of the task.
func (s *Studio) TaskPreview(ctx context.Context, t record.Task, image bool) (string, error) {
	pick := func(t record.Task) string {
		if len(t.Creations) == 0 {
			return ""
		}
		if image {
			return t.Creations[0].URL
		}
		return t.Creations[0].CoverURL
	}
	return s.preview(ctx, t.TaskID, pick(t), func(ctx context.Context) (string, error) {
		if err := s.Reread(ctx, t); err != nil {
			return "", err
		}
		now, err := s.store.Task(ctx, t.LocalID)
		if err != nil {
			return "", err
		}
		if u := pick(now); u != "" {
			return u, nil
		}
		return "", track.ErrExpired
	})
}

func (s *Studio) preview(ctx context.Context, key, src string, fresh func(context.Context) (string, error)) (string, error) {
	// One fetch at a time in a process: a picture asked for twice (a
	// detail opened again while its cover loads) is fetched once.
	s.previewMu.Lock()
	defer s.previewMu.Unlock()
	dir := filepath.Join(s.Config.DataDir, "previews")
	base := previewName.ReplaceAllString(key, "")
	if base == "" {
		base = "preview"
	}
	if p, ok := track.SavedPicture(dir, base); ok {
		return p, nil
	}
	freshFailed := false
	p, _, err := s.downloader.Save(ctx, track.File{
		Media: "image", Dir: dir, Base: base, Limit: track.MaxPreviewBytes, Replace: true,
		URL: func(ctx context.Context, again bool) (string, error) {
			if !again {
				return src, nil
			}
			u, err := fresh(ctx)
			if err != nil {
				freshFailed = true
			}
			return u, err
		},
	})
	host := ""
	if u, perr := url.Parse(src); perr == nil {
		host = u.Host
	}
	var netErr *url.Error
	switch {
	case err == nil:
		return p, nil
	case freshFailed && host != "":
		return "", fmt.Errorf("could not fetch the picture from %s, nor re-read the task for a fresh URL", host)
	case errors.Is(err, track.ErrExpired):
		return "", errors.New("the picture's URL has expired (r re-reads the task)")
	case errors.As(err, &netErr) && host != "":
		return "", fmt.Errorf("could not fetch the picture from %s", host)
	}
	return "", fmt.Errorf("could not fetch the picture: %w", err)
}

// launch hands a checked target to the desktop's opener (tests replace it).
var launch = func(target string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", target)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", target)
	default:
		cmd = exec.Command("xdg-open", target)
	}
	if err := cmd.Start(); errors.Is(err, exec.ErrNotFound) {
		// A server or a container: say what is missing, not exec's words.
		return fmt.Errorf("nothing here opens files or links (%s is not installed)", filepath.Base(cmd.Path))
	} else if err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// ErrNotOpened is a target the opener refuses: the error says why.
var ErrNotOpened = errors.New("not opened")

// OpenExternal is clapper's one opener: it hands target to the desktop's
// opener only when it is a web address (http or https with a host) or a
// media file clapper saved (inside a download folder of this backend, or
// recorded as a saved download in its history) with an extension of the
// download policy. Anything else (file:, ms-msdt:, a UNC path, /etc/passwd,
// a saved name with an executable extension) is refused with the reason:
// the server chooses URLs and names, and opening them must never run
// anything.
func (s *Studio) OpenExternal(ctx context.Context, target string) error {
	if u, err := url.Parse(target); err == nil && u.Scheme != "" && !isWindowsDrive(u.Scheme) {
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w (only http and https addresses are opened): %s", ErrNotOpened, api.CleanLine(target))
		}
		return launch(u.String())
	}
	path, err := s.savedFile(ctx, target)
	if err != nil {
		return err
	}
	return launch(path)
}

// OpensKind reports whether the opener takes a saved file of this name by
// its kind: a result the service sent as a type clapper does not know is
// saved as .bin, and OpenExternal and OpenFolderOf refuse it.
func OpensKind(name string) bool { return track.AllowedToOpen(name) }

// OpenFolderOf opens the folder of a file clapper saved (the same checks as
// OpenExternal's for the file).
func (s *Studio) OpenFolderOf(ctx context.Context, file string) error {
	path, err := s.savedFile(ctx, file)
	if err != nil {
		return err
	}
	return launch(filepath.Dir(path))
}

// savedFile checks a file for the opener and returns its real path.
func (s *Studio) savedFile(ctx context.Context, file string) (string, error) {
	// The reason first: a status line may cut the path.
	refuse := func(why string) error {
		return fmt.Errorf("%w (%s): %s", ErrNotOpened, why, api.CleanLine(file))
	}
	if file == "" {
		return "", fmt.Errorf("%w: no file was saved yet (d downloads it)", ErrNotOpened)
	}
	if !filepath.IsAbs(file) || strings.HasPrefix(file, `\\`) {
		return "", refuse("not a saved file")
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return "", refuse("not there any more: moved or deleted?")
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return "", refuse("not a regular file")
	}
	if !track.AllowedToOpen(real) {
		return "", refuse("not a video, picture or sound")
	}
	if s.inDownloadFolder(real) {
		return real, nil
	}
	if saved, err := s.store.SavedFile(ctx, file); err != nil {
		return "", err
	} else if saved {
		return real, nil
	}
	return "", refuse("neither in a download folder nor saved by clapper")
}

// inDownloadFolder reports a path inside a folder this backend saves
// results in.
func (s *Studio) inDownloadFolder(real string) bool {
	seen := map[string]bool{}
	for _, op := range api.Operations() {
		dir := s.downloader.DirFor(op)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			if rel, err := filepath.Rel(d, real); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
				return true
			}
		}
	}
	return false
}

// isWindowsDrive tells C: in C:\path from a URL scheme.
func isWindowsDrive(scheme string) bool { return len(scheme) == 1 }
