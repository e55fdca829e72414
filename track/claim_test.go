package track

import (
	"bytes"
	"context"
	"fmt"
	"maps"
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
	"clapper/record"
)

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
	id, err := store.QueueDownload(ctx, res.ID, 0, record.KindURL, filepath.Join(dir, name))
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
	if dls, _ := store.Downloads(ctx, res.ID); dls[0].Status != record.DownloadRunning || dls[0].Owner != "dead" || len(fs.ranges) != 0 {
		t.Fatalf("a download under a live lease was taken: %+v, requests %q", dls[0], fs.ranges)
	}
	clk.Advance(DefaultLease)
	stale, err := d.Interrupted(ctx)
	if err != nil || len(stale) != 1 || stale[0].ID != id {
		t.Fatalf("interrupted: %+v %v", stale, err)
	}
	dls, err := d.Settle(ctx, res.ID)
	if err != nil || len(dls) != 1 || dls[0].Status != record.DownloadDone || dls[0].Owner != "" {
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
		n, err := store.QueueDownload(ctx, res.ID, 0, record.KindURL, filepath.Join(dir, name+".mp4"))
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
	for name, want := range map[string]record.DownloadStatus{"a": record.DownloadDone, "b": record.DownloadRunning, "c": record.DownloadRunning} {
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
	got := make([][]record.Download, 2)
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
	runWithin(t, 30*time.Second, wg.Wait)
	if gets := fs.count(); gets["/a.mp4"] != 1 || gets["/b.mp4"] != 1 {
		t.Errorf("requests per file: %v, want one each", gets)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 2 {
		t.Errorf("saved %d files, want 2: %v", len(files), files)
	}
	for i, dls := range got {
		if len(dls) != 2 || dls[0].Status != record.DownloadDone || dls[1].Status != record.DownloadDone {
			t.Errorf("downloader %d reports %+v", i, dls)
		}
	}
}

// A claim is renewed while its download runs, so a download that takes
// longer than one lease is never taken over by a live process's rival.
// The leases run on a fake clock the test moves, and the transfer is held
// open until the test releases it, so no scheduling delay can let a lease
// lapse (only the renewal ticker runs on real time, every third of Lease).
func TestClaimIsRenewedWhileDownloading(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 10_000)
	fs := &heldFile{payload: payload, arrived: make(chan struct{}, 1), release: make(chan struct{})}
	fileSrv := httptest.NewServer(fs)
	defer fileSrv.Close()
	svc := newService()
	c, _, clk := setup(t, svc)
	store, rival := twoStores(t, clk)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/a.mp4")
	dir := t.TempDir()
	const lease = 30 * time.Millisecond
	// The held transfer is no stall: only the lease may end it.
	a := &Downloader{Store: store, Client: c, Clock: clk, Lease: lease, IdleTimeout: time.Hour, DirFor: func(api.Operation) string { return dir }}
	b := &Downloader{Store: rival, Client: c, Clock: clk, Lease: lease, DirFor: func(api.Operation) string { return dir }}
	ctx := context.Background()
	a.QueueResults(ctx, res.ID, api.OpImg2Video, clk.Now(), res)
	done := make(chan struct{})
	go func() { defer close(done); a.RunPending(ctx) }()
	defer func() { <-done }()
	released := false
	release := func() {
		if !released {
			released = true
			close(fs.release)
		}
	}
	defer release()
	select {
	case <-fs.arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the download never started")
	}
	leaseUntil := func() time.Time {
		dls, err := store.Downloads(ctx, res.ID)
		if err != nil || len(dls) != 1 {
			t.Fatalf("downloads %v, %v", dls, err)
		}
		return dls[0].LeaseUntil
	}
	claimedUntil := leaseUntil()
	// Two thirds into the lease the holder renews it from the new now...
	clk.Advance(2 * lease / 3)
	renewedUntil := clk.Now().Add(lease)
	for deadline := time.Now().Add(30 * time.Second); leaseUntil().Before(renewedUntil); {
		if time.Now().After(deadline) {
			t.Fatalf("lease ends %s (claimed until %s), want it renewed to %s", leaseUntil(), claimedUntil, renewedUntil)
		}
		time.Sleep(time.Millisecond)
	}
	// ...so once the first lease has lapsed, a rival still leaves it alone.
	clk.Advance(2 * lease / 3)
	if !clk.Now().After(claimedUntil) {
		t.Fatalf("the first lease (until %s) has not lapsed at %s", claimedUntil, clk.Now())
	}
	b.RunPending(ctx)
	release()
	<-done
	if n := fs.gets.Load(); n != 1 {
		t.Errorf("fetched %d times: the claim lapsed while its download ran", n)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Errorf("saved %v", files)
	}
}

// heldFile serves payload: the first request sends half of it and waits
// for release before the rest (it reports its arrival on arrived); any
// later one gets it whole at once. It counts the requests.
type heldFile struct {
	payload []byte
	arrived chan struct{}
	release chan struct{}
	gets    atomic.Int32
}

func (h *heldFile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	first := h.gets.Add(1) == 1
	w.Header().Set("Content-Length", fmt.Sprint(len(h.payload)))
	half := len(h.payload) / 2
	w.Write(h.payload[:half])
	w.(http.Flusher).Flush()
	if first {
		h.arrived <- struct{}{}
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		}
	}
	w.Write(h.payload[half:])
}

// Two computers with one host name (a laptop's default) are two machines to
// the owner tokens: a token of the other's process is never taken for a
// dead one of this machine's, whose lease or download could be taken over
// at once. The machine id is hashed, not shared.
func TestOwnerOfAnotherMachineOfOurHostNameIsNotGone(t *testing.T) {
	dir := t.TempDir()
	idOf := func(name, id string) []string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(id+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{filepath.Join(dir, "absent"), p}
	}
	host, _ := os.Hostname()
	mine, theirs := hostToken(host, idOf("mine", "3d1219c7")), hostToken(host, idOf("theirs", "9f00aa51"))
	if mine == theirs || !strings.HasPrefix(mine, host+"~") || strings.Contains(mine, "3d1219c7") {
		t.Fatalf("tokens of one host name on two machines: %q and %q", mine, theirs)
	}
	if got := hostToken("a/b", nil); got != "a_b" {
		t.Errorf("a host without a machine id: %q, want a_b", got)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	other := hostToken(host, idOf("other", "not this machine's id"))
	if ownerGone(fmt.Sprintf("%s/%d/0a0a", other, gone.Process.Pid)) {
		t.Error("a process of another machine with this host name was taken for a dead one of this machine")
	}
	if !ownerGone(fmt.Sprintf("%s/%d/0a0a", hostname(), gone.Process.Pid)) {
		t.Error("a dead process of this machine was taken for a live one")
	}
}
