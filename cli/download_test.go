package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"clapper/history"
	"clapper/record"
	"clapper/studio"
)

// executeCtx is execute under ctx: cancelling it is what Ctrl-C does.
func executeCtx(ctx context.Context, args ...string) run {
	var out, errb bytes.Buffer
	root := NewRoot(&App{Out: &out, Err: &errb, In: strings.NewReader(""), watcher: fastWatcher})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := 0
	if err != nil {
		code = ExitCode(err)
		errb.WriteString(err.Error())
	}
	return run{out.String(), errb.String(), code}
}

// resultFiles serves result files with Range support behind svc. While
// stall is set, a request for a file gets its headers and then nothing,
// and started is told.
type resultFiles struct {
	svc     *fakeService
	content map[string][]byte
	mu      sync.Mutex
	stall   bool
	started chan struct{}
	ranges  map[string][]string
}

func (f *resultFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, ok := f.content[r.URL.Path]
	if !ok {
		f.svc.ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	stall := f.stall
	f.ranges[r.URL.Path] = append(f.ranges[r.URL.Path], r.Header.Get("Range"))
	f.mu.Unlock()
	if stall {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		f.started <- struct{}{}
		<-r.Context().Done()
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func (f *resultFiles) requests(path string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.ranges[path])
}

// Issue 11.4: "Ctrl-C then exits 1, not 130." A download stalled after its
// headers stops at Ctrl-C with exit 130, and the next watch, with no task
// in flight, resumes it and says so (issue 11.5).
func TestCtrlCDuringDownloadExits130AndWatchResumesIt(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/reference2image": {`{"task_id":"w1","state":"created"}`}}}
	files := &resultFiles{svc: svc, content: map[string][]byte{"/files/1.png": []byte("the picture")},
		stall: true, started: make(chan struct{}, 1), ranges: map[string][]string{}}
	srv := httptest.NewServer(files)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	svc.answers["GET /ent/v2/tasks/w1/creations"] = []string{`{"id":"w1","state":"success","creations":[{"id":"c","url":"` + srv.URL + `/files/1.png"}]}`}
	dl, data := t.TempDir(), t.TempDir()
	args := func(a ...string) []string {
		return append(a, "--download-dir", dl, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)
	}

	ctx, ctrlC := context.WithCancel(context.Background())
	go func() {
		select {
		case <-files.started:
			ctrlC()
		case <-time.After(10 * time.Second):
		}
	}()
	done := make(chan run)
	go func() {
		done <- executeCtx(ctx, args("create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a cat", "--wait")...)
	}()
	var r run
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("create --wait did not stop at Ctrl-C")
	}
	ctrlC()
	if r.code != exitInterrupted || !strings.Contains(r.err, "stopped downloading the results of task w1; clapper watch resumes them") {
		t.Fatalf("Ctrl-C during the download: exit %d, stderr %q", r.code, r.err)
	}

	files.mu.Lock()
	files.stall = false
	files.mu.Unlock()
	r = executeCtx(context.Background(), args("watch")...)
	if r.code != 0 || !strings.Contains(r.out, "resuming 1 interrupted download(s)\n") || !strings.Contains(r.out, "No task is in flight.") {
		t.Fatalf("watch: exit %d\nstdout %q\nstderr %q", r.code, r.out, r.err)
	}
	saved, _ := filepath.Glob(filepath.Join(dl, "*_reference2image_w1_1.png"))
	if len(saved) != 1 || !strings.Contains(r.err, "saved "+saved[0]) {
		t.Fatalf("saved %v; stderr %q", saved, r.err)
	}
	if got, _ := os.ReadFile(saved[0]); string(got) != "the picture" {
		t.Errorf("file holds %q", got)
	}
	if r := executeCtx(context.Background(), args("watch")...); strings.Contains(r.out, "resuming") || r.code != 0 {
		t.Errorf("a second watch resumed again: %+v", r)
	}
}

// Issue 11.5: a download that a killed clapper left running is taken over by
// watch once its lease lapsed and resumed where it stopped; one that a live
// clapper holds is left to it (issue 11.6).
func TestWatchTakesOverDownloadsOfKilledClapperOnly(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/text2video": {`{"task_id":"dead1","state":"created"}`, `{"task_id":"live1","state":"created"}`}}}
	payload := bytes.Repeat([]byte("frame "), 2000)
	files := &resultFiles{svc: svc, content: map[string][]byte{"/files/dead1.mp4": payload, "/files/live1.mp4": payload}, ranges: map[string][]string{}}
	srv := httptest.NewServer(files)
	defer srv.Close()
	for _, id := range []string{"dead1", "live1"} {
		svc.answers["GET /ent/v2/tasks/"+id+"/creations"] = []string{`{"id":"` + id + `","state":"success","creations":[{"id":"c","url":"` + srv.URL + `/files/` + id + `.mp4"}]}`}
	}
	dl, data := t.TempDir(), t.TempDir()
	exec := func(a ...string) run {
		return execute("", append(a, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)...)
	}
	for range 2 {
		if r := exec("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p", "--wait", "--no-download"); r.code != 0 {
			t.Fatal(r.err)
		}
	}
	// What the two other clappers left in history: one was killed half way
	// (its lease lapsed), one is still fetching (its lease runs).
	store, err := history.Open(studio.Config{DataDir: data, BaseURL: srv.URL, APIKey: "k"}.HistoryPath())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		id    string
		lease time.Duration
	}{{"dead1", -time.Second}, {"live1", time.Hour}} {
		path := filepath.Join(dl, c.id+".mp4")
		n, err := store.QueueDownload(ctx, c.id, 0, record.KindURL, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.ClaimDownload(ctx, n, "other-"+c.id, c.lease); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dl, "."+c.id+".mp4.part"), payload[:5000], 0o644)
	}
	store.Close()

	r := exec("watch")
	if r.code != 0 || !strings.Contains(r.out, "resuming 1 interrupted download(s)\n") || !strings.Contains(r.out, "No task is in flight.") {
		t.Fatalf("watch: exit %d\nstdout %q\nstderr %q", r.code, r.out, r.err)
	}
	if got, err := os.ReadFile(filepath.Join(dl, "dead1.mp4")); err != nil || !bytes.Equal(got, payload) {
		t.Errorf("dead1.mp4: %d bytes, %v", len(got), err)
	}
	if got := files.requests("/files/dead1.mp4"); !slices.Equal(got, []string{"bytes=5000-"}) {
		t.Errorf("dead1 requests %q: the partial file was not resumed", got)
	}
	if got := files.requests("/files/live1.mp4"); len(got) != 0 {
		t.Errorf("fetched a file a live clapper holds: %q", got)
	}
}

// Issue 11.10: exit codes agree with the README, "2 bad input or usage
// (nothing was sent), 130 interrupted with Ctrl-C".
func TestExitCodesOfRefusedChangesAndCtrlC(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/text2video": {`{"task_id":"a1","state":"created"}`}}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	data := t.TempDir()
	args := func(a ...string) []string {
		return append(a, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)
	}
	if r := execute("", args("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p")...); r.code != 0 {
		t.Fatal(r.err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"resubmit", "1"}, "request #1 is created (task a1); only refused requests can be resubmitted"},
		{[]string{"history", "abandon", "1"}, "only refused requests and requests of unknown outcome can be abandoned"},
	} {
		r := execute("", args(c.args...)...)
		if r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.err, c.want)
		}
	}
	posts := 0
	for _, g := range svc.got {
		if g.method == http.MethodPost {
			posts++
		}
	}
	if posts != 1 {
		t.Errorf("%d creation requests sent, want 1", posts)
	}

	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if r := executeCtx(stopped, args("get", "a1")...); r.code != exitInterrupted {
		t.Errorf("get stopped by Ctrl-C: exit %d, stderr %q", r.code, r.err)
	}
}

// Issue 11.5: "A download interrupted by kill -9 stays running in history
// and is resumed only when some task happens to be in flight." A real
// clapper is killed half way through a download; the watch started right
// after it, with no task in flight, takes the download over at once (its
// holder no longer runs, though its lease has not lapsed) and resumes it.
func TestWatchRightAfterKillResumesTheDownload(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/reference2image": {`{"task_id":"k1","state":"created"}`}}}
	payload := bytes.Repeat([]byte("pixel "), 20_000)
	var mu sync.Mutex
	var ranges []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/files/k1.png" {
			svc.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		mu.Unlock()
		if r.Header.Get("Range") != "" {
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(payload))
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(payload)))
		w.Write(payload[:len(payload)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	svc.mu.Lock() // the child process's requests are not ordered after this write for the race detector
	svc.answers["GET /ent/v2/tasks/k1/creations"] = []string{`{"id":"k1","state":"success","creations":[{"id":"c","url":"` + srv.URL + `/files/k1.png"}]}`}
	svc.mu.Unlock()
	dl, data := t.TempDir(), t.TempDir()
	common := []string{"--download-dir", dl, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data}

	argv, _ := json.Marshal(append([]string{"create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a cat", "--wait"}, common...))
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+string(argv))
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once half the file is on disk.
	deadline := time.Now().Add(20 * time.Second)
	for {
		parts, _ := filepath.Glob(filepath.Join(dl, ".*.part"))
		if len(parts) == 1 {
			if st, err := os.Stat(parts[0]); err == nil && st.Size() == int64(len(payload)/2) {
				break
			}
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			child.Wait()
			t.Fatalf("the download never got half way:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()

	r := execute("", append([]string{"watch"}, common...)...)
	if r.code != 0 || !strings.Contains(r.out, "resuming 1 interrupted download(s)\n") || !strings.Contains(r.out, "No task is in flight.") {
		t.Fatalf("watch: exit %d\nstdout %q\nstderr %q", r.code, r.out, r.err)
	}
	saved, _ := filepath.Glob(filepath.Join(dl, "*_reference2image_k1_1.png"))
	if len(saved) != 1 {
		t.Fatalf("saved %v", saved)
	}
	if got, _ := os.ReadFile(saved[0]); !bytes.Equal(got, payload) {
		t.Errorf("file holds %d bytes, want %d", len(got), len(payload))
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"", fmt.Sprintf("bytes=%d-", len(payload)/2)}; !slices.Equal(ranges, want) {
		t.Errorf("requests (Range) %q, want %q", ranges, want)
	}
}
