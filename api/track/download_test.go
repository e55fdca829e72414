package track

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
)

func TestFileName(t *testing.T) {
	day := time.Date(2026, 3, 4, 23, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		id, url, want string
		op            api.Operation
	}{
		{"812", "https://cdn/x/video.mp4?sig=1", "2026-03-04_img2video_812_1.mp4", api.OpImg2Video},
		{"../../etc/passwd", "https://cdn/x", "2026-03-04_img2video_etcpasswd_1.mp4", api.OpImg2Video},
		{"a b\x1b[31m", "https://cdn/x.PNG", "2026-03-04_reference2image_ab31m_1.png", api.OpReference2Image},
		{"", "https://cdn/a.exe%2F..", "2026-03-04_audio-tts_task_1.wav", api.OpAudioTTS},
	} {
		if got := FileName(day, c.op, c.id, 0, c.url); got != c.want {
			t.Errorf("FileName(%q, %q) = %q, want %q", c.id, c.url, got, c.want)
		}
	}
}

// files serves result files with Range support; a path listed in expired
// answers 403 as a lapsed signature does.
type files struct {
	mu      sync.Mutex
	content map[string][]byte
	expired map[string]bool
	cutAt   int // when positive, the first full response stops after this many bytes
	ranges  []string
}

func (f *files) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	data, ok := f.content[r.URL.Path]
	if !ok || f.expired[r.URL.Path] {
		f.mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
		return
	}
	cut := f.cutAt
	f.cutAt = 0
	f.ranges = append(f.ranges, r.Header.Get("Range"))
	f.mu.Unlock()
	if cut > 0 && r.Header.Get("Range") == "" {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data[:cut])
		if hj, ok := w.(http.Hijacker); ok {
			conn, _, _ := hj.Hijack()
			conn.Close()
		}
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func TestDownloadResumesAndRefreshesExpiredURL(t *testing.T) {
	retryPause = time.Millisecond
	payload := bytes.Repeat([]byte("0123456789"), 100_000) // 1 MB
	fs := &files{content: map[string][]byte{"/old/1.mp4": payload, "/new/1.mp4": payload}, expired: map[string]bool{"/old/1.mp4": true}}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()

	svc := newService()
	c, store, clk := setup(t, svc)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	id := ids[0]
	res := &api.TaskResult{ID: id, State: api.StateSuccess, Creations: []api.Creation{{ID: "c", URL: fileSrv.URL + "/old/1.mp4"}}}
	if _, err := store.ApplyResult(context.Background(), id, updateFrom(res, clk.Now())); err != nil {
		t.Fatal(err)
	}
	// The old URL has lapsed; a re-read of the task signs a new one, whose
	// first transfer drops half way.
	svc.states[id] = []string{"success"}
	svcNewURL(svc, fileSrv.URL+"/new/1.mp4")
	fs.cutAt = len(payload) / 2
	dir := t.TempDir()
	var events []Event
	var mu sync.Mutex
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return dir },
		Emit: func(e Event) { mu.Lock(); events = append(events, e); mu.Unlock() }}
	if err := d.QueueResults(context.Background(), id, api.OpReference2Image, clk.Now(), res); err != nil {
		t.Fatal(err)
	}
	d.RunPending(context.Background())
	dls, _ := store.Downloads(context.Background(), id)
	if len(dls) != 1 || dls[0].Status != history.DownloadDone || dls[0].Bytes != int64(len(payload)) {
		t.Fatalf("downloads: %+v", dls)
	}
	got, err := os.ReadFile(dls[0].Path)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("file differs (%d bytes, %v)", len(got), err)
	}
	resumed := false
	for _, r := range fs.ranges {
		resumed = resumed || (strings.HasPrefix(r, "bytes=") && r != "bytes=0-")
	}
	if !resumed {
		t.Errorf("the dropped transfer was not resumed with a Range request: %q", fs.ranges)
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, ".*.part")); len(parts) != 0 {
		t.Errorf("partial files left: %v", parts)
	}
	if !strings.HasPrefix(filepath.Base(dls[0].Path), "2026-11-25_reference2image_"+id+"_1.") {
		t.Errorf("saved as %s", dls[0].Path)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) == 0 || events[len(events)-1].Download.Status != history.DownloadDone {
		t.Errorf("no done event: %+v", events)
	}
}

// A server that answers a resume from the wrong offset does not corrupt
// the file: the part is dropped and the download starts over.
func TestDownloadRejectsMisplacedResume(t *testing.T) {
	retryPause = time.Millisecond
	payload := []byte("the whole result file")
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.Header.Get("Range") != "" {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(payload)-1, len(payload)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(payload)
			return
		}
		w.Write(payload)
	}))
	defer srv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	res := &api.TaskResult{ID: ids[0], State: api.StateSuccess, Creations: []api.Creation{{ID: "c", URL: srv.URL + "/f.mp4"}}}
	store.ApplyResult(context.Background(), ids[0], updateFrom(res, clk.Now()))
	dir := t.TempDir()
	name := FileName(clk.Now(), api.OpImg2Video, ids[0], 0, res.Creations[0].URL)
	os.WriteFile(filepath.Join(dir, "."+name+".part"), []byte("the "), 0o644) // left by a crash
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return dir }}
	d.QueueResults(context.Background(), ids[0], api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	dls, _ := store.Downloads(context.Background(), ids[0])
	got, _ := os.ReadFile(dls[0].Path)
	if dls[0].Status != history.DownloadDone || !bytes.Equal(got, payload) {
		t.Errorf("status %s, file %q", dls[0].Status, got)
	}
}

func TestDownloadMarkedExpiredWhenNoFreshURL(t *testing.T) {
	fs := &files{content: map[string][]byte{}, expired: map[string]bool{}}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	id := ids[0]
	res := &api.TaskResult{ID: id, State: api.StateSuccess, Creations: []api.Creation{{ID: "c", URL: fileSrv.URL + "/gone.mp4"}}}
	store.ApplyResult(context.Background(), id, updateFrom(res, clk.Now()))
	// The service no longer knows the task: no fresh URL can be had.
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), id, api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	dls, _ := store.Downloads(context.Background(), id)
	if dls[0].Status != history.DownloadExpired {
		t.Errorf("status %s, want expired (%s)", dls[0].Status, dls[0].Error)
	}
}

// svcNewURL makes the scripted service answer success with the given URL.
func svcNewURL(svc *service, url string) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	svc.resultURL = url
}

func TestFinalNameFollowsMediaTypeAndNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, c := range []struct{ name, ct, want string }{
		{"a_1.png", "image/jpeg", "a_1.jpg"},
		{"a_1.png", "image/png", "a_1.png"},
		{"a_1.mp4", "text/plain; charset=utf-8", "a_1.mp4"},
		{"a_1.wav", "audio/mpeg", "a_1.mp3"},
		{"a_1.mp4", "", "a_1.mp4"},
	} {
		if got := finalName(root, c.name, c.ct); got != c.want {
			t.Errorf("finalName(%s, %s) = %s, want %s", c.name, c.ct, got, c.want)
		}
	}
	os.WriteFile(filepath.Join(dir, "b_1.mp4"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "b_1 (2).mp4"), nil, 0o644)
	if got := finalName(root, "b_1.mp4", "video/mp4"); got != "b_1 (3).mp4" {
		t.Errorf("existing files overwritten: %s", got)
	}
}

// A stored URL whose host is gone (an embedded sandbox's port from an
// earlier run) is re-read from the service rather than failed.
func TestDownloadRefreshesUnreachableURL(t *testing.T) {
	retryPause = time.Millisecond
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	gone := "http://" + ln.Addr().String() + "/1.png"
	ln.Close()
	fs := &files{content: map[string][]byte{"/new/1.png": []byte("png bytes")}, expired: map[string]bool{}}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	res := &api.TaskResult{ID: ids[0], State: api.StateSuccess, Creations: []api.Creation{{ID: "c", URL: gone}}}
	store.ApplyResult(context.Background(), ids[0], updateFrom(res, clk.Now()))
	svc.states[ids[0]] = []string{"success"}
	svcNewURL(svc, fileSrv.URL+"/new/1.png")
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), ids[0], api.OpReference2Image, clk.Now(), res)
	d.RunPending(context.Background())
	dls, _ := store.Downloads(context.Background(), ids[0])
	if dls[0].Status != history.DownloadDone {
		t.Errorf("status %s (%s)", dls[0].Status, dls[0].Error)
	}
}
