package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api/sandbox"
)

// stallFiles holds every result file request while stall is set (headers
// sent, no byte), telling started; otherwise it passes requests on.
type stallFiles struct {
	next    http.Handler
	mu      sync.Mutex
	stall   bool
	started chan struct{}
}

func (s *stallFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	stall := s.stall && strings.HasPrefix(r.URL.Path, "/_sandbox/files/")
	s.mu.Unlock()
	if !stall {
		s.next.ServeHTTP(w, r)
		return
	}
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	select {
	case s.started <- struct{}{}:
	default:
	}
	<-r.Context().Done()
}

// Issue 19.11: a composition save stopped half way (Ctrl-C) is finished by
// the next clapper watch.
func TestWatchResumesAStoppedCompositionSave(t *testing.T) {
	srv, err := sandbox.New(sandbox.Config{Speed: 2000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	files := &stallFiles{next: srv, started: make(chan struct{}, 1)}
	ts := httptest.NewServer(files)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close(); srv.Close() })
	data, saveDir := t.TempDir(), t.TempDir()
	args := func(a ...string) []string {
		return append(a, "--base-url", ts.URL, "--api-key", "k-123456789", "--data-dir", data)
	}
	r := execute("", args("create", "general_one_click", "--set", "images=https://example.com/a.png",
		"--set", "prompt=a day at the sea", "--set", "duration=25", "--json")...)
	if r.code != 0 {
		t.Fatalf("create: exit %d: %s", r.code, r.err)
	}
	var created struct{ ID string }
	json.Unmarshal([]byte(r.out), &created)
	start := time.Now()
	for rec := (jobJSON{}); rec.State != "success"; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the job is still %s", rec.State)
		}
		r = execute("", args("scenes", created.ID, "--json")...)
		json.Unmarshal([]byte(r.out), &rec)
	}

	files.mu.Lock()
	files.stall = true
	files.mu.Unlock()
	ctx, ctrlC := context.WithCancel(context.Background())
	go func() {
		select {
		case <-files.started:
			ctrlC()
		case <-time.After(10 * time.Second):
		}
	}()
	r = executeCtx(ctx, args("scenes", "compose", created.ID, "--download", "--download-dir", saveDir)...)
	ctrlC()
	if r.code != exitInterrupted {
		t.Fatalf("compose --download stopped while saving: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	if saved, _ := filepath.Glob(filepath.Join(saveDir, "*.mp4")); len(saved) != 0 {
		t.Fatalf("saved before the stop: %v", saved)
	}

	files.mu.Lock()
	files.stall = false
	files.mu.Unlock()
	r = execute("", args("watch")...)
	saved, _ := filepath.Glob(filepath.Join(saveDir, "*_general_one_click_*.mp4"))
	if r.code != 0 || len(saved) != 1 || !strings.Contains(r.err, "saved "+saved[0]+" (a multi-scene video an earlier clapper was saving)") {
		t.Fatalf("watch: exit %d, saved %v\nstdout %s\nstderr %s", r.code, saved, r.out, r.err)
	}
	if st, err := os.Stat(saved[0]); err != nil || st.Size() == 0 {
		t.Errorf("the resumed video: %v", err)
	}
	if r := execute("", args("watch")...); strings.Contains(r.err, "multi-scene video") {
		t.Errorf("a second watch saved it again: %s", r.err)
	}
}
