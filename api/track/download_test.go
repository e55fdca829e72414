package track

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
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
	runWithin(t, 5*time.Second, func() { d.RunPending(context.Background()) })
	dls, _ := store.Downloads(context.Background(), res.ID)
	if dls[0].Status != history.DownloadDone {
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
	if dls[0].Status != history.DownloadDone || requests.Load() != int32(len(payload)/piece) {
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
	d := &Downloader{Store: store, Client: c, Clock: clk, IdleTimeout: 30 * time.Millisecond, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	runWithin(t, 5*time.Second, func() { d.RunPending(context.Background()) })
	dls, _ := store.Downloads(context.Background(), res.ID)
	if dls[0].Status != history.DownloadFailed || !strings.Contains(dls[0].Error, "nothing received for 30ms") || dls[0].Owner != "" {
		t.Errorf("download %+v", dls[0])
	}
	if n := len(srv.requests()); n != attempts {
		t.Errorf("%d attempts, want %d", n, attempts)
	}
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
	runWithin(t, 5*time.Second, func() { _, err = d.Settle(ctx, res.ID) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Settle: %v", err)
	}
	dls, _ := store.Downloads(context.Background(), res.ID)
	if dls[0].Status != history.DownloadQueued || dls[0].Owner != "" {
		t.Errorf("download %+v", dls[0])
	}
}

// Issue 11.5: a download interrupted by kill -9 stays running with its
// owner's lease; once the lease lapsed, a new downloader takes it over and
// resumes the partial file.
func TestDownloadLeftByDeadProcessIsTakenOver(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789"), 1000)
	fs := &files{content: map[string][]byte{"/r.mp4": payload}, expired: map[string]bool{}}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	dir := t.TempDir()
	ctx := context.Background()
	name := FileName(clk.Now(), api.OpImg2Video, res.ID, 0, res.Creations[0].URL)
	id, err := store.QueueDownload(ctx, res.ID, 0, history.KindURL, filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	// The dead process: it claimed the download, wrote a part, and was killed.
	if _, err := store.ClaimDownload(ctx, id, "dead", DefaultLease); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "."+name+".part"), payload[:4000], 0o644)

	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return dir }}
	if stale, err := d.Interrupted(ctx); err != nil || len(stale) != 0 {
		t.Fatalf("a live lease counted as interrupted: %+v %v", stale, err)
	}
	d.RunPending(ctx)
	if dls, _ := store.Downloads(ctx, res.ID); dls[0].Status != history.DownloadRunning || dls[0].Owner != "dead" || len(fs.ranges) != 0 {
		t.Fatalf("a download under a live lease was taken: %+v, requests %q", dls[0], fs.ranges)
	}
	clk.Advance(DefaultLease)
	stale, err := d.Interrupted(ctx)
	if err != nil || len(stale) != 1 || stale[0].ID != id {
		t.Fatalf("interrupted: %+v %v", stale, err)
	}
	dls, err := d.Settle(ctx, res.ID)
	if err != nil || len(dls) != 1 || dls[0].Status != history.DownloadDone || dls[0].Owner != "" {
		t.Fatalf("after takeover: %+v %v", dls, err)
	}
	if got, _ := os.ReadFile(dls[0].Path); !bytes.Equal(got, payload) {
		t.Errorf("file differs (%d bytes)", len(got))
	}
	if !slices.Equal(fs.ranges, []string{"bytes=4000-"}) {
		t.Errorf("the partial file was not resumed: %q", fs.ranges)
	}
}

// A download whose holder was a process of this machine that no longer runs
// is taken over at once, though its lease has long to run; one that this
// process or an unknown machine holds waits for its lease.
func TestDownloadOfKilledProcessIsTakenOverAtOnce(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no process to outlive:", err)
	}
	payload := []byte("the whole result")
	fs := &files{content: map[string][]byte{"/a.mp4": payload, "/b.mp4": payload, "/c.mp4": payload}, expired: map[string]bool{}}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	ctx := context.Background()
	dir := t.TempDir()
	holders := map[string]string{
		"a": fmt.Sprintf("%s/%d/0a0a", hostname(), gone.Process.Pid),
		"b": fmt.Sprintf("%s/%d/0b0b", hostname(), os.Getpid()),
		"c": fmt.Sprintf("elsewhere/%d/0c0c", gone.Process.Pid),
	}
	ids := map[string]string{}
	for _, name := range []string{"a", "b", "c"} {
		res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/"+name+".mp4")
		ids[name] = res.ID
		n, err := store.QueueDownload(ctx, res.ID, 0, history.KindURL, filepath.Join(dir, name+".mp4"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.ClaimDownload(ctx, n, holders[name], time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return dir }}
	stale, err := d.Interrupted(ctx)
	if err != nil || len(stale) != 1 || stale[0].TaskID != ids["a"] {
		t.Fatalf("interrupted: %+v %v", stale, err)
	}
	d.RunPending(ctx)
	for name, want := range map[string]history.DownloadStatus{"a": history.DownloadDone, "b": history.DownloadRunning, "c": history.DownloadRunning} {
		dls, _ := store.Downloads(ctx, ids[name])
		if dls[0].Status != want {
			t.Errorf("download held by %s: %s, want %s", holders[name], dls[0].Status, want)
		}
	}
}

// twoStores opens two stores on one history file, as two clapper processes
// do, sharing clk.
func twoStores(t *testing.T, clk *sandbox.FakeClock) (*history.Store, *history.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.db")
	var s [2]*history.Store
	for i := range s {
		var err error
		if s[i], err = history.Open(path, history.WithClock(clk.Now)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s[i].Close() })
	}
	return s[0], s[1]
}

// slowFiles serves each file in ten pieces, pause apart, so that two
// downloaders overlap, and counts the requests per path.
type slowFiles struct {
	content map[string][]byte
	pause   time.Duration
	mu      sync.Mutex
	gets    map[string]int
}

func (f *slowFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.gets[r.URL.Path]++
	f.mu.Unlock()
	data := f.content[r.URL.Path]
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	for i := 0; i < len(data); i += len(data) / 10 {
		w.Write(data[i:min(i+len(data)/10, len(data))])
		w.(http.Flusher).Flush()
		time.Sleep(f.pause)
	}
}

func (f *slowFiles) count() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.gets)
}

// Issue 11.6: two processes that both see a task succeed (two watch, or the
// TUI and a watch) fetch each file once, save it once, and both report it.
func TestTwoDownloadersFetchEachFileOnce(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 10_000)
	fs := &slowFiles{content: map[string][]byte{"/a.mp4": payload, "/b.mp4": payload}, pause: 10 * time.Millisecond, gets: map[string]int{}}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()
	svc := newService()
	srv := httptest.NewServer(svc)
	defer srv.Close()
	c, err := api.NewClient(srv.URL, "tok")
	if err != nil {
		t.Fatal(err)
	}
	clk := sandbox.NewFakeClock(t0)
	s1, s2 := twoStores(t, clk)
	_, ids := watch(t, svc, c, s1, clk, WatcherOptions{}, 1)
	res := &api.TaskResult{ID: ids[0], State: api.StateSuccess, Creations: []api.Creation{{ID: "a", URL: fileSrv.URL + "/a.mp4"}, {ID: "b", URL: fileSrv.URL + "/b.mp4"}}}
	if _, err := s1.ApplyResult(context.Background(), ids[0], updateFrom(res, clk.Now())); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	got := make([][]history.Download, 2)
	for i, s := range []*history.Store{s1, s2} {
		d := &Downloader{Store: s, Client: c, Clock: clk, Workers: 1, Lease: time.Second, DirFor: func(api.Operation) string { return dir }}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			if err := d.QueueResults(ctx, ids[0], api.OpImg2Video, clk.Now(), res); err != nil {
				t.Error(err)
				return
			}
			dls, err := d.Settle(ctx, ids[0])
			if err != nil {
				t.Error(err)
			}
			got[i] = dls
		}()
	}
	runWithin(t, 10*time.Second, wg.Wait)
	if gets := fs.count(); gets["/a.mp4"] != 1 || gets["/b.mp4"] != 1 {
		t.Errorf("requests per file: %v, want one each", gets)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 2 {
		t.Errorf("saved %d files, want 2: %v", len(files), files)
	}
	for i, dls := range got {
		if len(dls) != 2 || dls[0].Status != history.DownloadDone || dls[1].Status != history.DownloadDone {
			t.Errorf("downloader %d reports %+v", i, dls)
		}
	}
}

// A claim is renewed while its download runs, so a download that takes
// longer than one lease is never taken over by a live process's rival.
func TestClaimIsRenewedWhileDownloading(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 10_000)
	fs := &slowFiles{content: map[string][]byte{"/a.mp4": payload}, pause: 40 * time.Millisecond, gets: map[string]int{}}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()
	svc := newService()
	c, _, clk := setup(t, svc)
	// Real time here: the lease must lapse unless renewed.
	path := filepath.Join(t.TempDir(), "h.db")
	store, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rival, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rival.Close()
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/a.mp4")
	dir := t.TempDir()
	lease := 120 * time.Millisecond // under a third of the transfer
	a := &Downloader{Store: store, Client: c, Lease: lease, DirFor: func(api.Operation) string { return dir }}
	b := &Downloader{Store: rival, Client: c, Lease: lease, DirFor: func(api.Operation) string { return dir }}
	ctx := context.Background()
	a.QueueResults(ctx, res.ID, api.OpImg2Video, clk.Now(), res)
	done := make(chan struct{})
	go func() { defer close(done); a.RunPending(ctx) }()
	for {
		select {
		case <-done:
			if n := fs.count()["/a.mp4"]; n != 1 {
				t.Errorf("fetched %d times: the claim lapsed while its download ran", n)
			}
			files, _ := os.ReadDir(dir)
			if len(files) != 1 {
				t.Errorf("saved %v", files)
			}
			return
		case <-time.After(10 * time.Millisecond):
			b.RunPending(ctx)
		}
	}
}
