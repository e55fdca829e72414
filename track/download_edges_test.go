package track

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// A result exactly at its kind's cap is saved, one byte more is refused:
// by its Content-Length, and while streaming when the server sends none.
func TestSizeCapAtTheBound(t *testing.T) {
	defer func(old int64) { MaxBytes["image"] = old }(MaxBytes["image"])
	MaxBytes["image"] = 1000
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		var chunked bool
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/"), "%d", &n)
		chunked = strings.Contains(r.URL.Path, "chunked")
		body := bytes.Repeat([]byte("x"), n)
		if !chunked {
			w.Header().Set("Content-Length", fmt.Sprint(n))
			w.Write(body)
			return
		}
		// No Content-Length: two pieces, flushed apart.
		w.Write(body[:n/2])
		w.(http.Flusher).Flush()
		w.Write(body[n/2:])
	}))
	defer hs.Close()
	for _, c := range []struct {
		path string
		want record.DownloadStatus
	}{
		{"/1000-sized.png", record.DownloadDone},
		{"/1001-sized.png", record.DownloadFailed},
		{"/1000-chunked.png", record.DownloadDone},
		{"/1001-chunked.png", record.DownloadFailed},
		{"/3000-sized.png", record.DownloadFailed},
	} {
		dl := saveResult(t, api.OpReference2Image, hs.URL+c.path, t.TempDir())
		if dl.Status != c.want {
			t.Errorf("%s: %s %q, want %s", c.path, dl.Status, dl.Error, c.want)
			continue
		}
		if c.want == record.DownloadDone {
			if st, err := os.Stat(dl.Path); err != nil || st.Size() != 1000 || dl.Bytes != 1000 {
				t.Errorf("%s: saved %+v (%v)", c.path, dl, err)
			}
		} else if !strings.Contains(dl.Error, "the cap is 1000 B") {
			t.Errorf("%s: error %q does not name the cap", c.path, dl.Error)
		}
		// A length announced over the cap is refused before the first
		// byte, naming the whole size.
		if strings.HasSuffix(c.path, "3000-sized.png") && !strings.Contains(dl.Error, "(2 KB of image at least") {
			t.Errorf("%s: error %q does not name the announced size", c.path, dl.Error)
		}
	}
}

// Run fetches what is queued as soon as it is queued: it does not wait for
// its once-a-minute sweep.
func TestRunDownloadsWhatIsQueuedAtOnce(t *testing.T) {
	payload := []byte("a small video")
	fileSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(payload) }))
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	done := make(chan struct{})
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() },
		Emit: func(e Event) {
			if e.Download != nil && e.Download.Status == record.DownloadDone {
				close(done)
			}
		}}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); d.Run(ctx) }()
	defer func() { cancel(); <-stopped }()
	if err := d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("not downloaded 20 s after it was queued")
	}
}

// A file whose server keeps failing is tried three times, each pause longer
// than the last (one, then two retry pauses), then marked failed.
func TestFailingFileIsTriedThreeTimesWithGrowingPauses(t *testing.T) {
	defer func(old time.Duration) { retryPause = old }(retryPause)
	retryPause = 20 * time.Millisecond
	var mu sync.Mutex
	var at []time.Time
	fileSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	dls, _ := store.Downloads(context.Background(), res.ID)
	if dls[0].Status != record.DownloadFailed || !strings.Contains(dls[0].Error, "500") {
		t.Errorf("download %+v", dls[0])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(at) != attempts {
		t.Fatalf("%d attempts, want %d", len(at), attempts)
	}
	if first, second := at[1].Sub(at[0]), at[2].Sub(at[1]); first < retryPause || second < 2*retryPause {
		t.Errorf("pauses %v and %v, want at least %v and %v", first, second, retryPause, 2*retryPause)
	}
}

// A lapsed URL whose result the re-read no longer lists is marked expired;
// the results it still lists are saved from their fresh URLs.
func TestRefreshWithoutTheResultMarksItExpired(t *testing.T) {
	retryPause = time.Millisecond
	fs := &files{content: map[string][]byte{"/new/1.mp4": []byte("first result")}, expired: map[string]bool{}}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	id := ids[0]
	res := &api.TaskResult{ID: id, State: api.StateSuccess, Creations: []api.Creation{
		{ID: "c1", URL: fileSrv.URL + "/old/1.mp4"}, {ID: "c2", URL: fileSrv.URL + "/old/2.mp4"}}}
	if _, err := store.ApplyResult(context.Background(), id, updateFrom(res, clk.Now())); err != nil {
		t.Fatal(err)
	}
	svc.states[id] = []string{"success"} // the re-read lists one result only
	svcNewURL(svc, fileSrv.URL+"/new/1.mp4")
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), id, api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	dls, _ := store.Downloads(context.Background(), id)
	if len(dls) != 2 || dls[0].Status != record.DownloadDone || dls[1].Status != record.DownloadExpired {
		t.Errorf("downloads %+v, want the first done and the second expired", dls)
	}
}

// A download reports where it starts (bytes so far, whole length) and then
// its progress every 256 KiB while running.
func TestDownloadReportsItsProgress(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 600<<10)
	fileSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/webp") // not the .mp4 queued: the name changes when saved
		w.Header().Set("Content-Length", fmt.Sprint(len(payload)))
		w.Write(payload)
	}))
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	var mu sync.Mutex
	var running []record.Download
	var done *record.Download
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() },
		Emit: func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case e.Download != nil && e.Download.Status == record.DownloadRunning:
				running = append(running, *e.Download)
			case e.Download != nil && e.Download.Status == record.DownloadDone:
				done = e.Download
			}
		}}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	mu.Lock()
	defer mu.Unlock()
	// Started at 0 of 600 KiB, then at 256 KiB and 512 KiB at least.
	if len(running) != 3 || running[0].Bytes != 0 {
		t.Fatalf("running reports %+v, want the start and two of progress", running)
	}
	for i, r := range running {
		if r.Total != int64(len(payload)) {
			t.Errorf("report %d: total %d, want %d", i, r.Total, len(payload))
		}
		if i > 0 && r.Bytes < int64(i)*256<<10 {
			t.Errorf("report %d at %d bytes, before %d KiB", i, r.Bytes, i*256)
		}
	}
	// The last report names the file saved, as history does.
	dls, _ := store.Downloads(context.Background(), res.ID)
	if done == nil || done.Path != dls[0].Path || !strings.HasSuffix(done.Path, ".webp") || done.Bytes != int64(len(payload)) {
		t.Errorf("done reported as %+v, history has %+v", done, dls[0])
	}
}

// cuttingFiles serves a 400-byte result by a script of answers, one per
// request: a number n sends bytes up to n of the file from where the
// request resumes, then cuts the connection; 0 answers 500.
type cuttingFiles struct {
	mu     sync.Mutex
	script []int
	gets   int
}

func (f *cuttingFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	payload := bytes.Repeat([]byte("y"), 400)
	f.mu.Lock()
	upTo := 0
	if f.gets < len(f.script) {
		upTo = f.script[f.gets]
	}
	f.gets++
	f.mu.Unlock()
	if upTo == 0 {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	var from int
	fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &from)
	w.Header().Set("Content-Length", fmt.Sprint(len(payload)-from))
	if from > 0 {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(payload)-1, len(payload)))
		w.WriteHeader(http.StatusPartialContent)
	}
	w.Write(payload[from:upTo])
	w.(http.Flusher).Flush()
	conn, _, _ := w.(http.Hijacker).Hijack()
	conn.Close()
}

// An attempt counts against the three tries unless it moved the file
// further than every attempt before it. The first attempt always counts,
// whatever it fetched; one that fetched nothing sets the mark at zero, so
// the next that fetches anything does not count.
func TestOnlyAttemptsThatGetFurtherAreFree(t *testing.T) {
	retryPause = time.Millisecond
	for _, c := range []struct {
		name   string
		script []int
		gets   int
	}{
		{"a first attempt that got 100 bytes, then failures", []int{100}, 3},
		{"a failure, 100 bytes (free), then failures", []int{0, 100}, 4},
	} {
		files := &cuttingFiles{script: c.script}
		fileSrv := httptest.NewServer(files)
		svc := newService()
		cl, store, clk := setup(t, svc)
		res := finishedTask(t, svc, cl, store, clk, fileSrv.URL+"/r.mp4")
		d := &Downloader{Store: store, Client: cl, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() }}
		d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
		d.RunPending(context.Background())
		fileSrv.Close()
		dls, _ := store.Downloads(context.Background(), res.ID)
		if dls[0].Status != record.DownloadFailed || files.gets != c.gets {
			t.Errorf("%s: %s after %d requests, want failed after %d", c.name, dls[0].Status, files.gets, c.gets)
		}
	}
}

// claimRefused is a store whose claims fail, as a full or broken disk does.
type claimRefused struct{ *history.Store }

func (claimRefused) ClaimDownload(context.Context, int64, string, time.Duration) (record.Download, error) {
	return record.Download{}, errors.New("database disk image is malformed")
}

// A claim that fails for a reason other than another holder is reported
// (the download stays queued); nothing is fetched.
func TestFailedClaimIsReported(t *testing.T) {
	var gets int
	fileSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gets++ }))
	defer fileSrv.Close()
	svc := newService()
	c, hs, clk := setup(t, svc)
	res := finishedTask(t, svc, c, hs, clk, fileSrv.URL+"/r.mp4")
	var reported []error
	d := &Downloader{Store: claimRefused{hs}, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() },
		Emit: func(e Event) { reported = append(reported, e.Err) }}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	if len(reported) != 1 || reported[0] == nil || !strings.Contains(reported[0].Error(), "malformed") || gets != 0 {
		t.Errorf("reported %v after %d fetches, want the claim's error and no fetch", reported, gets)
	}
}

// progressLog is a store that keeps the progress a downloader records.
type progressLog struct {
	Store
	got []record.DownloadProgress
}

func (p *progressLog) UpdateDownload(_ context.Context, _ int64, dp record.DownloadProgress) error {
	p.got = append(p.got, dp)
	return nil
}

// Progress is recorded as soon as 256 KiB more have arrived, not later.
func TestProgressIsRecordedEvery256KiB(t *testing.T) {
	log := &progressLog{}
	pw := &progressWriter{ctx: context.Background(), d: &Downloader{Store: log}, total: 1 << 20}
	for _, n := range []int{256<<10 - 1, 1, 256<<10 - 1, 1} {
		pw.Write(make([]byte, n))
	}
	if len(log.got) != 2 || log.got[0].Bytes != 256<<10 || log.got[1].Bytes != 512<<10 {
		t.Errorf("recorded %+v, want at 256 KiB and 512 KiB", log.got)
	}
}

// An extension is read from a URL's path only: one that is all query or
// fragment names none, and the kind's usual extension is used.
func TestExtensionNeverComesFromTheQuery(t *testing.T) {
	day := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	for _, url := range []string{"?name=x.gif", "#x.gif"} {
		if got, want := FileName(day, api.OpReference2Image, "t1", 0, url), "2026-03-04_reference2image_t1_1.png"; got != want {
			t.Errorf("FileName(%q) = %q, want %q", url, got, want)
		}
		if got := chooseExt("image", url, "", nil); got != "bin" {
			t.Errorf("chooseExt(%q) = %q, want bin (nothing to go by)", url, got)
		}
	}
}

// A resumed transfer reports the whole length (what it has plus what
// comes), not what is left.
func TestResumeReportsTheWholeLength(t *testing.T) {
	retryPause = time.Millisecond
	files := &cuttingFiles{script: []int{100, 400}}
	fileSrv := httptest.NewServer(files)
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	var mu sync.Mutex
	var starts []record.Download
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() },
		Emit: func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			if e.Download != nil && e.Download.Status == record.DownloadRunning {
				starts = append(starts, *e.Download)
			}
		}}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	mu.Lock()
	defer mu.Unlock()
	if len(starts) != 2 || starts[1].Bytes != 100 {
		t.Fatalf("running reports %+v, want the start and the resume at 100 bytes", starts)
	}
	for _, s := range starts {
		if s.Total != 400 {
			t.Errorf("a start at %d bytes reports a total of %d, want 400", s.Bytes, s.Total)
		}
	}
}

// A resumed transfer that streams past the cap (no length announced) stops
// one byte past it, counting what the partial file already held.
func TestResumePastTheCapStopsOneBytePastIt(t *testing.T) {
	defer func(old int64) { MaxBytes["image"] = old }(MaxBytes["image"])
	MaxBytes["image"] = 1000
	retryPause = time.Millisecond
	fileSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") == "" {
			w.Write(bytes.Repeat([]byte("z"), 500)) // no length: chunked
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		w.Header().Set("Content-Range", "bytes 500-2999/3000")
		w.WriteHeader(http.StatusPartialContent)
		for range 20 {
			w.Write(bytes.Repeat([]byte("z"), 100))
			w.(http.Flusher).Flush()
		}
	}))
	defer fileSrv.Close()
	dl := saveResult(t, api.OpReference2Image, fileSrv.URL+"/r.png", t.TempDir())
	if dl.Status != record.DownloadFailed || !strings.Contains(dl.Error, "(1001 B of image at least; the cap is 1000 B)") {
		t.Errorf("%s %q", dl.Status, dl.Error)
	}
}

// A file server out of reach fails the download with the reason first and
// the server it is on, not Go's `Get "…long signed URL…": …`, whose reason
// a line's end cuts off.
func TestUnreachableFileSaysWhyFirst(t *testing.T) {
	defer func(old time.Duration) { retryPause = old }(retryPause)
	retryPause = time.Millisecond
	gone := httptest.NewServer(http.NotFoundHandler())
	host := gone.Listener.Addr().String()
	gone.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, "http://"+host+"/files/a-long-signed-path.mp4?sig=abcdef")
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() }}
	d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res)
	d.RunPending(context.Background())
	dls, _ := store.Downloads(context.Background(), res.ID)
	if len(dls) != 1 || dls[0].Status != record.DownloadFailed || !strings.Contains(dls[0].Error, "connection refused (from "+host+")") ||
		strings.Contains(dls[0].Error, "sig=") || strings.HasPrefix(dls[0].Error, "Get ") {
		t.Errorf("download %+v", dls)
	}
}
