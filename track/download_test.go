package track

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
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
	if len(dls) != 1 || dls[0].Status != record.DownloadDone || dls[0].Bytes != int64(len(payload)) {
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
	if len(events) == 0 || events[len(events)-1].Download.Status != record.DownloadDone {
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
	if dls[0].Status != record.DownloadDone || !bytes.Equal(got, payload) {
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
	if dls[0].Status != record.DownloadExpired {
		t.Errorf("status %s, want expired (%s)", dls[0].Status, dls[0].Error)
	}
}

// svcNewURL makes the scripted service answer success with the given URL.
func svcNewURL(svc *service, url string) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	svc.resultURL = url
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
	if dls[0].Status != record.DownloadDone {
		t.Errorf("status %s (%s)", dls[0].Status, dls[0].Error)
	}
}

// finishedTask is a task of svc that succeeded with one result at url,
// recorded in store.
func finishedTask(t *testing.T, svc *service, c *api.Client, store *history.Store, clk *sandbox.FakeClock, url string) *api.TaskResult {
	t.Helper()
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	res := &api.TaskResult{ID: ids[0], State: api.StateSuccess, Creations: []api.Creation{{ID: "c", URL: url}}}
	if _, err := store.ApplyResult(context.Background(), ids[0], updateFrom(res, clk.Now())); err != nil {
		t.Fatal(err)
	}
	return res
}

// stalling serves payload; a request without Range gets the headers and the
// first half, then nothing more until the client gives up. It counts the
// requests it got.
type stalling struct {
	payload []byte
	always  bool // stall every request, before the first byte
	mu      sync.Mutex
	ranges  []string
}

func (s *stalling) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	s.mu.Unlock()
	if s.always || r.Header.Get("Range") == "" {
		w.Header().Set("Content-Length", fmt.Sprint(len(s.payload)))
		w.WriteHeader(http.StatusOK)
		if !s.always {
			w.Write(s.payload[:len(s.payload)/2])
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(s.payload))
}

// start serves s until the test ends; a client stuck on a stalled transfer
// is cut off, so that a hanging download fails its test instead of blocking
// the server's Close.
func (s *stalling) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv
}

func (s *stalling) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ranges)
}

// runWithin runs fn and fails the test if it has not returned after limit:
// a download that hangs must show as a failure, not as a stuck test run.
func runWithin(t *testing.T, limit time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still running after %s: the download hangs", limit)
	}
}

// Issue 11.4: "A result download whose server sends headers and then stalls
// hangs forever." No bytes for the idle timeout abandons the attempt, and
// the next resumes with a Range request.
func TestDownloadStallResumesWithRange(t *testing.T) {
	retryPause = time.Millisecond
	srv := &stalling{payload: bytes.Repeat([]byte("abcdefgh"), 4096)}
	fileSrv := srv.start(t)
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	dir := t.TempDir()
	d := &Downloader{Store: store, Client: c, Clock: clk, IdleTimeout: 50 * time.Millisecond, DirFor: func(api.Operation) string { return dir }}
	if err := d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res); err != nil {
		t.Fatal(err)
	}
	runWithin(t, 30*time.Second, func() { d.RunPending(context.Background()) })
	dls, _ := store.Downloads(context.Background(), res.ID)
	if dls[0].Status != record.DownloadDone {
		t.Fatalf("status %s (%s)", dls[0].Status, dls[0].Error)
	}
	if got, _ := os.ReadFile(dls[0].Path); !bytes.Equal(got, srv.payload) {
		t.Errorf("file differs (%d bytes)", len(got))
	}
	want := []string{"", fmt.Sprintf("bytes=%d-", len(srv.payload)/2)}
	if got := srv.requests(); !slices.Equal(got, want) {
		t.Errorf("requests (Range headers) %q, want %q", got, want)
	}
}

// An attempt that moves the file forward before the connection breaks does
// not use up a try: a server that drops every transfer after a piece still
// delivers the whole file, in more pieces than there are tries.
func TestDownloadKeepsGoingWhileItProgresses(t *testing.T) {
	retryPause = time.Millisecond
	payload := bytes.Repeat([]byte("0123456789"), 500)
	const piece = 1000
	var requests atomic.Int32
	fileSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var from int
		fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &from)
		w.Header().Set("Content-Length", fmt.Sprint(len(payload)-from))
		if from > 0 {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(payload)-1, len(payload)))
			w.WriteHeader(http.StatusPartialContent)
		}
		w.Write(payload[from:min(from+piece, len(payload))])
		w.(http.Flusher).Flush()
		if from+piece < len(payload) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}
	}))
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	dls, _ := store.Downloads(context.Background(), res.ID)
	if dls[0].Status != record.DownloadDone || requests.Load() != int32(len(payload)/piece) {
		t.Fatalf("status %s (%s) after %d requests", dls[0].Status, dls[0].Error, requests.Load())
	}
	if got, _ := os.ReadFile(dls[0].Path); !bytes.Equal(got, payload) {
		t.Errorf("file differs (%d bytes)", len(got))
	}
}

// A server that never sends a byte ends the download as failed, with the
// reason, after a bounded number of attempts.
func TestDownloadThatAlwaysStallsFails(t *testing.T) {
	retryPause = time.Millisecond
	srv := &stalling{payload: []byte("never sent"), always: true}
	fileSrv := srv.start(t)
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	// Attempts are counted as the client sends them: under load the idle
	// timeout may end an attempt before its request reaches the server.
	sent := &countingTransport{next: &http.Transport{DisableCompression: true}}
	d := &Downloader{Store: store, Client: c, Clock: clk, HTTP: &http.Client{Transport: sent}, IdleTimeout: 30 * time.Millisecond, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	runWithin(t, 30*time.Second, func() { d.RunPending(context.Background()) })
	dls, _ := store.Downloads(context.Background(), res.ID)
	if dls[0].Status != record.DownloadFailed || !strings.Contains(dls[0].Error, "nothing received for 30ms") || dls[0].Owner != "" {
		t.Errorf("download %+v", dls[0])
	}
	if n := sent.count.Load(); n != attempts {
		t.Errorf("%d attempts, want %d", n, attempts)
	}
}

// countingTransport counts the requests a client sends.
type countingTransport struct {
	next  http.RoundTripper
	count atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.count.Add(1)
	return c.next.RoundTrip(r)
}

// The wait stays interruptible: a cancelled context ends a stalled download
// at once, leaves it queued for the next run and releases its claim.
func TestStalledDownloadStopsWithContext(t *testing.T) {
	srv := &stalling{payload: []byte("never sent"), always: true}
	fileSrv := srv.start(t)
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	d := &Downloader{Store: store, Client: c, Clock: clk, IdleTimeout: time.Hour, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var err error
	runWithin(t, 30*time.Second, func() { _, err = d.Settle(ctx, res.ID) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Settle: %v", err)
	}
	dls, _ := store.Downloads(context.Background(), res.ID)
	if dls[0].Status != record.DownloadQueued || dls[0].Owner != "" {
		t.Errorf("download %+v", dls[0])
	}
}
