package track

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	"clapper/record"
)

// Tests for the mutants of the whole-package run of issue 35 that lived.

// pendingFails is a store whose list of pending downloads cannot be read
// while fail is set (a history on a full disk).
type pendingFails struct {
	Store
	fail atomic.Bool
}

func (s *pendingFails) PendingDownloads(ctx context.Context) ([]record.Download, error) {
	if s.fail.Load() {
		return nil, errors.New("database is locked")
	}
	return s.Store.PendingDownloads(ctx)
}

// A downloader that cannot read its queue says so, as a download event
// with the error (the front end shows it), and goes on running.
func TestRunReportsAQueueItCannotRead(t *testing.T) {
	_, store, clk := setup(t, newService())
	ps := &pendingFails{Store: store}
	ps.fail.Store(true)
	events := make(chan Event, 16)
	d := &Downloader{Store: ps, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() },
		Emit: func(e Event) { events <- e }}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- d.Run(ctx) }()
	select {
	case e := <-events:
		if e.Kind != EventDownload || e.Err == nil || !strings.Contains(e.Err.Error(), "database is locked") {
			t.Errorf("event %+v, want the queue's error", e)
		}
	case <-time.After(20 * time.Second):
		t.Error("a queue that cannot be read is not reported")
	}
	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("Run ended with %v", err)
	}
	select {
	case e := <-events:
		t.Errorf("an event after the end: %+v", e)
	default:
	}
}

// renewals is a store that notes when a claim is taken and renewed.
type renewals struct {
	Store
	mu      sync.Mutex
	claimed time.Time
	renewed []time.Time
}

func (s *renewals) ClaimDownload(ctx context.Context, id int64, owner string, lease time.Duration) (record.Download, error) {
	s.mu.Lock()
	s.claimed = time.Now()
	s.mu.Unlock()
	return s.Store.ClaimDownload(ctx, id, owner, lease)
}

func (s *renewals) RenewDownload(ctx context.Context, id int64, owner string, lease time.Duration) error {
	s.mu.Lock()
	s.renewed = append(s.renewed, time.Now())
	s.mu.Unlock()
	return s.Store.RenewDownload(ctx, id, owner, lease)
}

// A download that lasts longer than its claim's lease renews the claim
// before the lease ends, so no other downloader (another clapper) takes a
// running download over and fetches the file a second time.
func TestALongDownloadRenewsItsClaimWithinTheLease(t *testing.T) {
	const lease = 3 * time.Second
	release := make(chan struct{})
	fileSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "8")
		w.Write([]byte("half"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Write([]byte("done"))
	}))
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	rs := &renewals{Store: store}
	d := &Downloader{Store: rs, Client: c, Clock: clk, Lease: lease, DirFor: func(api.Operation) string { return t.TempDir() }}
	if err := d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.RunPending(context.Background()) }()
	deadline := time.Now().Add(3 * lease)
	for {
		rs.mu.Lock()
		claimed, renewed := rs.claimed, slices.Clone(rs.renewed)
		rs.mu.Unlock()
		if len(renewed) > 0 {
			if gap := renewed[0].Sub(claimed); gap >= lease {
				t.Errorf("the claim was first renewed %v after it was taken, past its lease of %v", gap, lease)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("no renewal in %v of a %v lease", 3*lease, lease)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A file that failed its last attempt is marked failed at once: no retry
// pause follows the last attempt (a --wait that saves results would wait
// it out for nothing).
func TestTheLastFailedAttemptIsRecordedAtOnce(t *testing.T) {
	defer func(old time.Duration) { retryPause = old }(retryPause)
	retryPause = 300 * time.Millisecond
	var mu sync.Mutex
	var last time.Time
	fileSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = time.Now()
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer fileSrv.Close()
	svc := newService()
	c, store, clk := setup(t, svc)
	res := finishedTask(t, svc, c, store, clk, fileSrv.URL+"/r.mp4")
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return t.TempDir() }}
	if err := d.QueueResults(context.Background(), res.ID, api.OpImg2Video, clk.Now(), res); err != nil {
		t.Fatal(err)
	}
	if err := d.RunPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	after := time.Since(last)
	mu.Unlock()
	dls, _ := store.Downloads(context.Background(), res.ID)
	if len(dls) != 1 || dls[0].Status != record.DownloadFailed {
		t.Fatalf("downloads %+v", dls)
	}
	if after >= attempts*retryPause {
		t.Errorf("the failure was recorded %v after the last attempt, a retry pause after it", after)
	}
}

// A service that cannot answer the account's counts is asked three times
// in a row, then no more (the probe is off): not a fourth time.
func TestTheCountsAreAskedThreeTimesAtMost(t *testing.T) {
	svc := newService()
	var reads atomic.Int32
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == api.PathCredits {
			reads.Add(1)
		}
		svc.ServeHTTP(w, r)
	})
	c, store, clk := setup(t, counted)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	svc.states[ids[0]] = []string{"processing"}
	run(t, w, clk, t0.Add(20*time.Minute))
	if n := reads.Load(); n != 3 {
		t.Errorf("the account, answering 404, was read %d times, want 3", n)
	}
}

// A failed read of the counts while a task runs is tried again one window
// gap later, not left for the slower beat of tasks outside their windows.
func TestAFailedReadOfTheCountsIsTriedAgainAfterAGap(t *testing.T) {
	svc := newService()
	var mu sync.Mutex
	var at []time.Time
	var clk interface{ Now() time.Time }
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == api.PathCredits {
			mu.Lock()
			at = append(at, clk.Now())
			mu.Unlock()
		}
		svc.ServeHTTP(w, r)
	})
	c, store, fake := setup(t, counted)
	mu.Lock()
	clk = fake
	mu.Unlock()
	w, ids := watch(t, svc, c, store, fake, WatcherOptions{}, 1)
	svc.states[ids[0]] = []string{"processing"}
	svc.credits = `{"remaining_credits":[{"type":"general","credit_remain":500,"concurrency_limit":5,"current_concurrency":1,"queue_count":0}]}`
	run(t, w, fake, t0.Add(60*time.Second))
	mu.Lock()
	before := len(at)
	mu.Unlock()
	if before == 0 {
		t.Fatal("the counts were never read")
	}
	svc.mu.Lock()
	svc.credits = "" // 404, once
	svc.mu.Unlock()
	for i := 0; ; i++ {
		next := w.Step(context.Background())
		drain(w)
		mu.Lock()
		n := len(at)
		mu.Unlock()
		if n > before {
			break
		}
		if i > 1000 || next.IsZero() {
			t.Fatal("the counts were not read again")
		}
		fake.Set(next)
	}
	svc.mu.Lock()
	svc.credits = `{"remaining_credits":[{"type":"general","credit_remain":500,"concurrency_limit":5,"current_concurrency":1,"queue_count":0}]}`
	svc.mu.Unlock()
	run(t, w, fake, fake.Now().Add(10*w.sched.WindowGap))
	mu.Lock()
	defer mu.Unlock()
	if len(at) < before+2 {
		t.Fatalf("no read after the failed one: %v", at)
	}
	if gap := at[before+1].Sub(at[before]); gap > w.sched.WindowGap+time.Second {
		t.Errorf("the counts were asked again %v after a failed read, want within the window gap %v", gap, w.sched.WindowGap)
	}
}

// Round four (issue 35): the probe's survivors of round three.

// countsOf is the account's answer with n of its tasks running.
func countsOf(n int) string {
	return fmt.Sprintf(`{"remaining_credits":[{"type":"general","credit_remain":500,"concurrency_limit":5,"current_concurrency":%d,"queue_count":0}]}`, n)
}

// Another client's task running beside ours is counted once and kept
// apart: when ours ends, the counts fall by one while theirs still runs,
// and that fall is our end, found within a window gap with one read of our
// task, not at its own read every probeSpacing gaps.
func TestAnEndIsFoundBesideAnotherClientsTask(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	svc.credits = countsOf(2)
	svc.states[ids[0]] = []string{"processing"}
	// 30 s in, the task is in its window, read on its own only every
	// probeSpacing gaps (the first such read comes about 60 s in).
	run(t, w, clk, t0.Add(30*time.Second))
	readsBefore := svc.reads[ids[0]]
	svc.mu.Lock()
	svc.states[ids[0]] = []string{"success"}
	svc.credits = countsOf(1)
	svc.mu.Unlock()
	end := clk.Now()
	var seen time.Time
	for _, e := range run(t, w, clk, end.Add(10*time.Minute)) {
		if e.To == api.StateSuccess {
			seen = e.At
		}
	}
	if seen.IsZero() || seen.Sub(end) > w.sched.WindowGap || svc.reads[ids[0]] != readsBefore+1 {
		t.Errorf("the end seen %v after it happened (window gap %v), with %d reads of the task", seen.Sub(end), w.sched.WindowGap, svc.reads[ids[0]]-readsBefore)
	}
}

// Once nothing runs, a read of the counts that fails is not asked again:
// the counts stand in for running tasks' reads, and there are none.
func TestNoTaskRunningAFailedReadOfTheCountsIsNotRepeated(t *testing.T) {
	svc := newService()
	var reads atomic.Int32
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == api.PathCredits {
			reads.Add(1)
		}
		svc.ServeHTTP(w, r)
	})
	c, store, clk := setup(t, counted)
	w, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	svc.credits = countsOf(1)
	svc.states[ids[0]] = []string{"processing"}
	run(t, w, clk, t0.Add(60*time.Second))
	svc.mu.Lock()
	svc.states[ids[0]] = []string{"success"}
	svc.credits = countsOf(0)
	svc.mu.Unlock()
	// Step until the end is seen, then the account answers 404.
	ended := false
	for i := 0; !ended; i++ {
		next := w.Step(context.Background())
		for _, e := range drain(w) {
			ended = ended || e.To == api.StateSuccess
		}
		if i > 1000 || (next.IsZero() && !ended) {
			t.Fatal("the end was never seen")
		}
		if !ended {
			clk.Set(next)
		}
	}
	svc.mu.Lock()
	svc.credits = ""
	svc.mu.Unlock()
	before := reads.Load()
	run(t, w, clk, clk.Now().Add(20*w.sched.WindowGap))
	if n := reads.Load() - before; n > 1 {
		t.Errorf("with nothing running the account was read %d times after its end, failing; want at most once", n)
	}
}

// A multi-scene job that ended leaves nothing behind in the watcher: its
// scenes' ids, by which the service calls back, go with it, or a long
// session would keep every finished job's scenes.
func TestAnEndedJobLeavesNoSceneBehind(t *testing.T) {
	scenes := `{"type":"generate_video","index":0,"jobs":[{"id":"s1-a","type":"generate_video","state":"%s"}]},` +
		`{"type":"compose_video","index":1,"jobs":[{"id":"c-a","type":"compose_video","state":"%s"}]}`
	srv := &jobAnswers{bodies: []string{
		job("processing", fmt.Sprintf(scenes, "processing", "created")),
		job("success", fmt.Sprintf(scenes, "success", "success")),
	}}
	c, store, clk := setup(t, srv)
	w := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: every(time.Second)})
	w.Watch("j1", api.OpGeneralOneClick, "", api.StateCreated, clk.Now())
	run(t, w, clk, clk.Now().Add(time.Hour))
	w.mu.Lock()
	aliases, subs := len(w.aliases), len(w.subs)
	w.mu.Unlock()
	if w.Watching() != 0 || aliases != 0 || subs != 0 {
		t.Errorf("after the job ended: %d followed, %d scene ids kept for %d jobs; want none", w.Watching(), aliases, subs)
	}
}

// A Save (a multi-scene video, a preview) whose server fails every
// attempt returns the failure right after its last attempt, its attempts
// spaced by growing pauses: no pause after the last (a caller waiting on
// the save would wait it out for nothing).
func TestASaveThatFailsReturnsAfterItsLastAttempt(t *testing.T) {
	defer func(old time.Duration) { retryPause = old }(retryPause)
	retryPause = 300 * time.Millisecond
	var mu sync.Mutex
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	f := File{Media: "video", Dir: t.TempDir(), Base: "cut", URL: func(context.Context, bool) (string, error) { return srv.URL + "/cut.mp4", nil }}
	_, _, err := (&Downloader{}).Save(context.Background(), f)
	end := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if err == nil || len(at) != attempts {
		t.Fatalf("Save: %v after %d attempts, want a failure after %d", err, len(at), attempts)
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < time.Duration(i)*retryPause {
			t.Errorf("attempt %d came %v after the one before, want a pause of %v", i+1, gap, time.Duration(i)*retryPause)
		}
	}
	if after := end.Sub(at[len(at)-1]); after >= retryPause {
		t.Errorf("Save returned %v after its last attempt, a retry pause after it", after)
	}
}

// SavedPicture passes over an empty file (a save that stopped at its
// creation) for the picture of another extension.
func TestSavedPictureSkipsAnEmptyFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cover.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := SavedPicture(dir, "cover"); ok {
		t.Error("an empty cover.png taken for the picture")
	}
	jpg := filepath.Join(dir, "cover.jpg")
	if err := os.WriteFile(jpg, []byte("\xff\xd8\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	if found, ok := SavedPicture(dir, "cover"); !ok || found != jpg {
		t.Errorf("SavedPicture: %q, %v; want %s", found, ok, jpg)
	}
}

// An operation with no running time of its own (speech, queued at the
// service) is given a minute: a speech seen running at its first read is
// read next when the earliest end of a minute's window nears (16 s on),
// not every few seconds as a task expected to end at once.
func TestASpeechIsGivenAMinuteToRun(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	sub, err := tr.Submit(context.Background(), api.OpAudioTTS, map[string]any{"text": "hi", "voice_setting_voice_id": "v"})
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.Identifier()
	svc.states[id] = []string{"processing"}
	w := NewWatcher(c, store, WatcherOptions{Clock: clk})
	if err := w.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	var seen time.Time
	for _, e := range run(t, w, clk, t0.Add(15*time.Second)) {
		if e.To == api.StateProcessing {
			seen = e.At
		}
	}
	if n := svc.reads[id]; seen.IsZero() || n != 1 {
		t.Errorf("a speech seen running at %v was read %d times in all in the first 15 s, want once", seen.Sub(t0), n)
	}
	if got := Prior(api.OpAudioTTS); got != time.Minute {
		t.Errorf("speech's running time before any was seen: %v, want a minute", got)
	}
}

// With the account probe a task's window is a quarter wider at its end
// too: runs of 60, 70 and 80 s make it end at 85 s, and the probe watches
// the task until a window gap (20/6 s) past that; a second later it is
// read on its own, as a task past its window.
func TestAProbedWindowEndsAQuarterLater(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := noJitter(DefaultSchedule())
	for _, d := range []time.Duration{60, 70, 80} {
		s.Observe(api.OpText2Video, "", d*time.Second)
	}
	gap := 20 * time.Second / 6
	task := &watched{op: api.OpText2Video, state: api.StateProcessing, stateSince: now.Add(-88 * time.Second)}
	if p := s.plan(task, now, 0, true); !p.windowed || p.d != probeSpacing*s.WindowGap*19/20 {
		t.Errorf("probed, 88 s in (85 s and a gap of %v): %+v, want it still watched by the probe", gap, p)
	}
	task.stateSince = now.Add(-89 * time.Second)
	if p := s.plan(task, now, 0, true); p.windowed || p.d != gap {
		t.Errorf("probed, 89 s in: %+v, want it read on its own a window gap (%v) on", p, gap)
	}
}

// A creation that fails says what happened to it and nothing else: a
// refusal, a host not reached, an answer lost, none of them "and recording
// it failed" while history recorded it. A 500, the first of the 5xx, is of
// unknown outcome like any 5xx (the task may exist), not a refusal.
func TestAFailedCreationSaysOnlyWhatHappened(t *testing.T) {
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	unreached := "http://" + closed.Addr().String()
	closed.Close()
	for _, c := range []struct {
		name    string
		answer  func(w http.ResponseWriter) bool
		base    string
		unknown bool
	}{
		{name: "refused", answer: func(w http.ResponseWriter) bool {
			w.WriteHeader(400)
			io.WriteString(w, `{"code":400,"reason":"InvalidParameter","message":"bad prompt"}`)
			return true
		}},
		{name: "500", answer: func(w http.ResponseWriter) bool { w.WriteHeader(500); return true }, unknown: true},
		{name: "cut", answer: func(w http.ResponseWriter) bool {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return true
		}, unknown: true},
		{name: "not reached", base: unreached},
	} {
		svc := newService()
		svc.create = c.answer
		client, store, clk := setup(t, svc)
		if c.base != "" {
			client, _ = api.NewClient(c.base, "tok", api.WithSleep(func(context.Context, time.Duration) error { return nil }))
		}
		tr := &Tracker{Client: client, Store: store, Clock: clk}
		_, err := tr.Submit(context.Background(), api.OpText2Video, body())
		if err == nil || strings.Contains(err.Error(), "recording") {
			t.Errorf("%s: %v; want the failure alone", c.name, err)
			continue
		}
		unknown, _ := store.UnknownOutcomes(context.Background())
		if errors.Is(err, ErrOutcomeUnknown) != c.unknown || (len(unknown) == 1) != c.unknown {
			t.Errorf("%s: %v, %d of unknown outcome in history; want unknown %v", c.name, err, len(unknown), c.unknown)
		}
	}
}

// A download whose bytes keep coming, each within the idle timeout, runs
// as long as they come: one request, the file whole, though it takes many
// times the idle timeout in all.
func TestASteadySlowDownloadIsNotIdle(t *testing.T) {
	defer func(old time.Duration) { retryPause = old }(retryPause)
	retryPause = time.Millisecond
	picture := pngBytes(t)
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Length", fmt.Sprint(len(picture)))
		w.WriteHeader(http.StatusOK)
		step := (len(picture) + 7) / 8
		for i := 0; i < len(picture); i += step {
			w.Write(picture[i:min(i+step, len(picture))])
			w.(http.Flusher).Flush()
			time.Sleep(60 * time.Millisecond)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	d := &Downloader{IdleTimeout: 200 * time.Millisecond}
	path, n, err := d.Save(context.Background(), File{Media: "image", Dir: dir, Base: "slow", URL: func(context.Context, bool) (string, error) { return srv.URL + "/slow.png", nil }})
	if err != nil || n != int64(len(picture)) || requests.Load() != 1 {
		t.Fatalf("Save: %s, %d bytes, %v, after %d requests; want the whole file in one", path, n, err, requests.Load())
	}
}

// A new run of clapper starts from the running times earlier runs saw, as
// its history holds them: after three tasks that each ran about a minute,
// a new one seen running is next read as its earliest end nears, not a
// few seconds on as the built-in guess (20 s) would have it.
func TestANewRunStartsFromTheRunningTimesInHistory(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	first, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(10 * time.Second)}, 3)
	for _, id := range ids {
		svc.states[id] = []string{"processing", "processing", "processing", "processing", "processing", "processing", "success"}
	}
	run(t, first, clk, clk.Now().Add(time.Hour))
	if times, err := store.RunningTimes(context.Background(), api.OpReference2Image, "svcq2"); err != nil || len(times) != 3 || times[0] < 50*time.Second {
		t.Fatalf("history's running times %v, %v; want three of about a minute", times, err)
	}
	// The first run ends, leaving the poller's lease (as Run does).
	if err := store.ReleasePoller(context.Background(), first.lease.owner); err != nil {
		t.Fatal(err)
	}
	w, next := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	svc.states[next[0]] = []string{"processing"}
	run(t, w, clk, clk.Now().Add(30*time.Second))
	if n := svc.reads[next[0]]; n != 1 {
		t.Errorf("a task seen running was read %d times in its first 30 s, want once (at its first read)", n)
	}
}

// Following a multi-scene job turns the account probe off (its scenes are
// counted as tasks); once the job ended, the probe stands in again for the
// reads of tasks in their windows.
func TestTheProbeIsBackOnceAJobEnded(t *testing.T) {
	svc := newService()
	jobs := &jobAnswers{bodies: []string{job("processing", ""), job("success", "")}}
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/one-click/") {
			jobs.ServeHTTP(w, r)
			return
		}
		svc.ServeHTTP(w, r)
	})
	c, store, clk := setup(t, mux)
	w := NewWatcher(c, store, WatcherOptions{Clock: clk})
	w.Watch("j1", api.OpGeneralOneClick, "", api.StateCreated, clk.Now())
	svc.credits = countsOf(0)
	run(t, w, clk, clk.Now().Add(time.Hour))
	if w.Watching() != 0 {
		t.Fatalf("the job is still followed after %d reads", jobs.reads)
	}
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	sub, err := tr.Submit(context.Background(), api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "p"})
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.Identifier()
	svc.states[id] = []string{"processing"}
	svc.credits = countsOf(1)
	if err := w.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := svc.creditReads
	run(t, w, clk, clk.Now().Add(40*time.Second))
	if svc.creditReads == before || svc.reads[id] > 4 {
		t.Errorf("after the job: %d reads of the counts, %d of the task in 40 s; want the counts read in its stead", svc.creditReads-before, svc.reads[id])
	}
}

// applyFails is a store whose next write of a read fails (a team's
// database that dropped the connection once), and counts reads by id.
type applyFails struct {
	Store
	fail  atomic.Int32
	reads atomic.Int32
}

func (s *applyFails) ApplyResult(ctx context.Context, taskID string, u record.Update) (bool, error) {
	if s.fail.Load() > 0 {
		s.fail.Add(-1)
		return false, errors.New("connection reset")
	}
	return s.Store.ApplyResult(ctx, taskID, u)
}

func (s *applyFails) TaskByID(ctx context.Context, taskID string) (record.Task, error) {
	s.reads.Add(1)
	return s.Store.TaskByID(ctx, taskID)
}

// A follower whose write of what it read fails once puts the task back on
// its schedule once: it reads the history for it once a due time, and
// after its end no more (a second place in its queue, due with the first,
// was read again at the end).
func TestAFollowerThatFailedToRecordForgetsTheTaskAtItsEnd(t *testing.T) {
	svc := newService()
	c, store, clk := setup(t, svc)
	poller, ids := watch(t, svc, c, store, clk, WatcherOptions{Schedule: every(5 * time.Second)}, 1)
	svc.states[ids[0]] = []string{"processing"}
	followed := &applyFails{Store: store}
	follower := NewWatcher(c, followed, WatcherOptions{Clock: clk, Schedule: every(5 * time.Second)})
	if err := follower.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	poller.Step(context.Background()) // it claims the lease first
	// The follower sees the task processing, and fails to record it.
	followed.fail.Store(1)
	lockstep(t, clk, func() bool { return followed.fail.Load() == 0 }, poller, follower)
	svc.mu.Lock()
	svc.states[ids[0]] = []string{"success"}
	svc.mu.Unlock()
	// One task followed: at most one read of it each time one is due, the
	// last one included.
	for i := 0; follower.Watching() > 0; i++ {
		if i > 100 {
			t.Fatal("the follower never saw the end")
		}
		clk.Advance(5 * time.Second)
		poller.Step(context.Background())
		before := followed.reads.Load()
		follower.Step(context.Background())
		if n := followed.reads.Load() - before; n > 1 {
			t.Errorf("the follower read the history %d times at once for its one task", n)
		}
	}
	before := followed.reads.Load()
	for range 12 {
		clk.Advance(5 * time.Second)
		poller.Step(context.Background())
		follower.Step(context.Background())
	}
	if n := followed.reads.Load() - before; n != 0 {
		t.Errorf("the follower read the history %d times for a task it no longer follows", n)
	}
}
