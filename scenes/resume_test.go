package scenes

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/track"
)

// stallingFiles serves the sandbox's result files; while stall is set, a
// request without a Range gets half the file and then nothing, and
// stalled is told.
type stallingFiles struct {
	next    http.Handler
	mu      sync.Mutex
	stall   bool
	stalled chan struct{}
	ranges  []string
	whole   []byte
}

func (s *stallingFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/_sandbox/files/") {
		s.next.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	stall := s.stall && r.Header.Get("Range") == ""
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	s.mu.Unlock()
	if !stall {
		s.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	s.mu.Lock()
	s.whole = bytes.Clone(body)
	s.mu.Unlock()
	w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
	w.Write(body[:len(body)/2])
	w.(http.Flusher).Flush()
	s.stalled <- struct{}{}
	<-r.Context().Done()
}

func (s *stallingFiles) resumed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.ranges {
		if strings.HasPrefix(r, "bytes=") && r != "bytes=0-" {
			return true
		}
	}
	return false
}

// Issue 19.11: a version's video is saved by the one downloader: a
// transfer that stalls is abandoned after the idle timeout and resumed
// where it stopped, and a save stopped half way (Ctrl-C, a closed TUI) is
// finished by the next clapper watch (ResumeDownloads) from its partial
// file.
func TestVersionSaveTimesOutWhenIdleAndIsResumed(t *testing.T) {
	r := newRig(t)
	files := &stallingFiles{next: r.rec.next, stall: true, stalled: make(chan struct{}, 4)}
	r.rec.next = files
	// The idle timeout runs from the request on, so it must outlast serving
	// the first half of the file even in a -race run on a loaded machine:
	// an attempt cut off before any byte is no resume.
	r.svc.Downloader = &track.Downloader{IdleTimeout: time.Second}
	jobID := r.create()
	j := r.job(jobID)
	first, second := j.Scenes[0].Jobs[0].ID, j.Scenes[1].Jobs[0].ID
	dir := filepath.Join(r.dir, "mine")

	done := make(chan error, 1)
	go func() { _, err := r.svc.Download(t.Context(), jobID, first, dir); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("a stalled save was not resumed: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a stalled save hangs: no idle timeout")
	}
	if !files.resumed() {
		t.Errorf("the stalled transfer was started over, not resumed: %q", files.ranges)
	}

	// Stopped half way: the partial file stays, and watch finishes it.
	r.svc.Downloader = &track.Downloader{IdleTimeout: time.Minute} // only the stop ends this one
	ctx, stop := context.WithCancel(t.Context())
	go func() { _, err := r.svc.Download(ctx, jobID, second, dir); done <- err }()
	<-files.stalled // the first version's stall
	<-files.stalled
	// Stopped once the first half is on the disk.
	for deadline := time.Now().Add(30 * time.Second); ; {
		parts, _ := filepath.Glob(filepath.Join(dir, ".*.part"))
		if len(parts) == 1 {
			if st, err := os.Stat(parts[0]); err == nil && st.Size() > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the first half never reached the partial file")
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	if err := <-done; err == nil {
		t.Fatal("a stopped save reported success")
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, ".*.part")); len(parts) != 1 {
		t.Fatalf("partial files after the stop: %v", parts)
	}
	files.mu.Lock()
	files.stall, files.ranges = false, nil
	files.mu.Unlock()
	saved, err := r.svc.ResumeDownloads(t.Context())
	if err != nil || len(saved) != 1 {
		t.Fatalf("resumed %v, %v", saved, err)
	}
	got, _ := os.ReadFile(saved[0])
	files.mu.Lock()
	whole := files.whole
	files.mu.Unlock()
	if !bytes.Equal(got, whole) || len(got) == 0 {
		t.Errorf("the resumed file has %d bytes, want the %d of the video", len(got), len(whole))
	}
	if !files.resumed() {
		t.Errorf("watch started the save over instead of resuming it: %q", files.ranges)
	}
	// A save that failed for a reason is the user's to try again: watch
	// would only fail on it at every run.
	third := j.Scenes[2].Jobs[0].ID
	if ok, err := r.svc.Store.StartVersionDownload(t.Context(), jobID, third, filepath.Join(dir, "x.mp4"), time.Minute); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := r.svc.Store.FinishVersionDownload(t.Context(), third, "", 0, errors.New("the video's URL answered 410 Gone")); err != nil {
		t.Fatal(err)
	}
	if again, err := r.svc.ResumeDownloads(t.Context()); err != nil || len(again) != 0 {
		t.Errorf("a second resume saved again: %v %v", again, err)
	}
}
