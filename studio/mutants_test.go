package studio_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver gated wraps

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// The copy of clapper that holds the team's poller lease reads the service
// for the others, and its own header reads the service every time: after a
// send its counts move at once, never held at a read it kept for the others
// (a tester saw '0 running' beside a task processing).
func TestTeamPollerReadsTheServiceItself(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	a := tm.copy(t, "", nil)
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// A copy competes for the lease once it follows a task.
	if _, err := a.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "a cat"}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); !a.WatcherForTest().Leading(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) { // a hang guard: the only copy that follows claims at once
			t.Fatal("the started copy never took the poller's lease")
		}
	}
	first, err := a.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "a fox"}); err != nil {
		t.Fatal(err)
	}
	now, err := a.Account(ctx)
	if err != nil || now.Remaining >= first.Remaining {
		t.Fatalf("the poller shows %+v (%v) after spending: a read it kept (%d), not the service's", now, err, first.Remaining)
	}
}

// A machine that does not lead shows the account read another kept while
// it is under two minutes old, to the last millisecond, and reads the
// service itself from two minutes on.
func TestTeamAccountReadIsKeptUnderTwoMinutes(t *testing.T) {
	tm := newTeam(t)
	ctx, clk := context.Background(), tm.clk
	a, b := tm.copy(t, "", nil), tm.copy(t, "", nil)
	kept, err := a.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "a fox"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2*time.Minute - time.Millisecond)
	if got, err := b.Account(ctx); err != nil || got.Remaining != kept.Remaining {
		t.Fatalf("b shows %+v (%v) a millisecond before two minutes; want the kept %d", got, err, kept.Remaining)
	}
	clk.Advance(time.Millisecond)
	if got, err := b.Account(ctx); err != nil || got.Remaining >= kept.Remaining {
		t.Fatalf("b shows %+v (%v) two minutes after the kept read; want the service's, under %d", got, err, kept.Remaining)
	}
}

var registerGated sync.Once

// sqlGate, when set, sees each statement a history opened on gatedDriver
// runs, with its context, before the driver does: an error it returns is
// the statement's. A test sets it and puts it back (the tests of this
// package run one at a time).
var sqlGate atomic.Pointer[func(ctx context.Context, query string) error]

// gatedDriver names a driver over modernc's "sqlite" that passes each
// statement through sqlGate: a history that fails or stalls where a test
// says (a full disk, a lost team database, a slow read).
func gatedDriver() string {
	registerGated.Do(func() {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			panic(err)
		}
		sql.Register("sqlite-gated", gated{db.Driver()})
		db.Close()
	})
	return "sqlite-gated"
}

// gate sets sqlGate for the rest of the test.
func gate(t *testing.T, g func(ctx context.Context, query string) error) {
	sqlGate.Store(&g)
	t.Cleanup(func() { sqlGate.Store(nil) })
}

func pass(ctx context.Context, query string) error {
	if g := sqlGate.Load(); g != nil {
		return (*g)(ctx, query)
	}
	return nil
}

type gated struct{ driver.Driver }

func (d gated) Open(name string) (driver.Conn, error) {
	c, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	return gatedConn{c}, nil
}

// gatedConn forwards what modernc's connection offers; the interfaces it
// does not forward make database/sql fall back to ones it does.
type gatedConn struct{ driver.Conn }

func (c gatedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c gatedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := pass(ctx, query); err != nil {
		return nil, err
	}
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c gatedConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, o)
}

func (c gatedConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	if err := pass(ctx, q); err != nil {
		return nil, err
	}
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c gatedConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if err := pass(ctx, q); err != nil {
		return nil, err
	}
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c gatedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

var errRefused = errors.New("disk I/O error (the test's driver)")

// refuseDownloads makes the history refuse every statement queueing a
// download.
func refuseDownloads(t *testing.T) {
	gate(t, func(_ context.Context, query string) error {
		if strings.Contains(query, "INSERT INTO downloads") {
			return errRefused
		}
		return nil
	})
}

// startRefusing starts a sandbox studio, as startSandbox does, on a
// history that refuses to queue downloads.
func startRefusing(t *testing.T, clk *sandbox.FakeClock) *studio.Studio {
	t.Helper()
	isolated(t)
	refuseDownloads(t)
	fast := &track.Schedule{FirstPoll: time.Millisecond, MinInterval: time.Millisecond, MaxInterval: time.Millisecond,
		QueueCheckMin: time.Millisecond, QueueCheckMax: time.Millisecond, Slots: 5,
		Priors: map[api.Operation]time.Duration{api.OpReference2Image: time.Millisecond}}
	s, err := studio.Open(context.Background(), resolved(t, studio.Config{}), studio.Options{Clock: clk.Now,
		Sandbox: &sandbox.Config{Clock: clk, Seed: 11}, History: []history.Option{history.WithDriver(gatedDriver())},
		Watcher: track.WatcherOptions{Clock: clk, RequestsPerSecond: 1000, Burst: 100, Schedule: fast}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// downloadFailure is the event telling the user the results of taskID
// could not be saved, among seen; nil when there is none.
func downloadFailure(seen []track.Event, taskID string) *track.Event {
	for i, ev := range seen {
		if ev.Kind == track.EventDownload && ev.TaskID == taskID && ev.Err != nil {
			return &seen[i]
		}
	}
	return nil
}

// A task that succeeds while the history cannot queue its files tells the
// user so (the TUI's status line: "download of task ...: disk I/O error"),
// instead of leaving a success whose files never come.
func TestASuccessWhoseFilesCannotBeQueuedSaysSo(t *testing.T) {
	clk := sandbox.NewFakeClock(wiringT0)
	s := startRefusing(t, clk)
	sub, err := s.Submit(context.Background(), api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.Identifier()
	seen := endedOn(t, s, clk, id)
	if ev := downloadFailure(seen, id); ev == nil || !errors.Is(ev.Err, errRefused) {
		t.Fatalf("no event says the image's files could not be queued: %+v", seen)
	}
}

// A voice clone's preview answered at once is saved like any result; when
// the history cannot queue it, the user is told so too.
func TestAPreviewAnsweredAtOnceThatCannotBeQueuedSaysSo(t *testing.T) {
	clk := sandbox.NewFakeClock(wiringT0)
	s := startRefusing(t, clk)
	sub, err := s.Submit(context.Background(), api.OpAudioClone, map[string]any{
		"voice_id": "narrator_anna", "audio_url": "https://example.com/anna.mp3", "text": "Hello there."})
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.Identifier()
	if sub.Task.State != api.StateSuccess {
		t.Fatalf("the clone was not answered at once: %+v", sub.Task)
	}
	var seen []track.Event
	for deadline := time.After(20 * time.Second); downloadFailure(seen, id) == nil; {
		select {
		case ev := <-s.Events():
			seen = append(seen, ev)
		case <-deadline: // a hang guard: the event is published as Submit returns
			t.Fatalf("no event says the preview could not be queued: %+v", seen)
		}
	}
}

// The folders an agent may read, typed on the Settings page, start from
// the home folder with ~ or ~/: "~" alone is the home folder, and ~NAME (a
// user's home, which clapper does not look up) is refused as not a full
// path rather than read as a folder NAME in the home folder.
func TestMediaRootsStartFromTheHomeFolder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.Mkdir(filepath.Join(home, "pics"), 0o700); err != nil {
		t.Fatal(err)
	}
	if roots, err := studio.ParseMediaRoots("~"); err != nil || len(roots) != 1 || roots[0] != home {
		t.Errorf("~: %v, %v; want %s", roots, err, home)
	}
	if roots, err := studio.ParseMediaRoots("~/pics"); err != nil || len(roots) != 1 || roots[0] != filepath.Join(home, "pics") {
		t.Errorf("~/pics: %v, %v; want %s", roots, err, filepath.Join(home, "pics"))
	}
	if roots, err := studio.ParseMediaRoots("~pics"); err == nil || !strings.Contains(err.Error(), "~pics: give a full path") {
		t.Errorf("~pics: %v, %v; want it refused as not a full path", roots, err)
	}
}

// On a team's database every read of the counts the watcher makes while
// tasks run is kept for the other machines' headers, not only the reads
// the header asks for.
func TestTeamWatcherKeepsItsReadsOfTheCounts(t *testing.T) {
	tm := newTeam(t)
	ctx, clk := context.Background(), tm.clk
	a := tm.copy(t, "", nil)
	if _, err := a.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "a fox"}); err != nil {
		t.Fatal(err)
	}
	for range 600 { // ten simulated minutes, read by read
		if _, kept, err := a.Record().AccountRead(ctx, a.Config.Account()); err != nil || kept {
			return
		}
		clk.Advance(time.Second)
		a.Poll(ctx)
	}
	t.Fatal("ten minutes of a running task and no read of the counts kept for the team")
}

// The caps a studio's sends are held to, as an agent reads them: the
// agent cap only for an agent's sends, and no cap that is not set (0).
func TestCapRoomsAreTheCapsSet(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		origin record.Origin
		cfg    studio.Config
		want   string
	}{
		{record.OriginTUI, studio.Config{}, ""},
		{record.OriginMCP, studio.Config{}, ""},
		{record.OriginTUI, studio.Config{AgentCreditCap: 30, DailyCreditCap: 100}, "day 100"},
		{record.OriginMCP, studio.Config{AgentCreditCap: 30, MonthlyCreditCap: 900}, "agent work day 30, month 900"},
	} {
		isolated(t)
		s, err := studio.Open(ctx, resolved(t, c.cfg), studio.Options{SendOnly: true, Origin: c.origin})
		if err != nil {
			t.Fatal(err)
		}
		rooms, err := s.CapRooms(ctx)
		s.Close()
		var got []string
		for _, r := range rooms {
			got = append(got, strings.TrimSpace(r.Scope+" "+r.Period+" "+strconv.FormatInt(r.Cap, 10)))
		}
		if err != nil || strings.Join(got, ", ") != c.want {
			t.Errorf("%s with %+v: caps %q (%v), want %q", c.origin, c.cfg, got, err, c.want)
		}
	}
}

// A request too large to send says its size in megabytes (MiB, as the
// service's 20 MB limit counts them).
func TestTooLargeSaysItsSize(t *testing.T) {
	cfg := studio.Config{Uploads: "never"}
	size := 21*(1<<20) + 1<<19 // 21.5 MB
	body := map[string]any{"model": "svcq2", "prompt": "p", "images": []any{"data:image/png;base64,AAAA"}}
	if got, want := cfg.SizeRule(api.OpReference2Image, body, size), "request body is 21.5 MB; the service takes at most 20 MB"; !strings.HasPrefix(got, want) {
		t.Errorf("SizeRule = %q, want %q…", got, want)
	}
}

// A batch is held against the daily cap before its first send: a partly
// priced batch (a live service publishes no prices; only lines like a task
// in history are priced) counts its known floor against the cap's room.
func TestBatchHoldCountsAPartlyPricedFloor(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	ctx := context.Background()
	// One earlier svcq3-pro task of 40 credits, today: it prices the
	// svcq3-pro lines and has spent 40.
	lid, err := s.Record().BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq3-pro","prompt":"p"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().MarkSubmitted(ctx, lid, record.SubmittedEcho{TaskID: "old", State: api.StateSuccess, Credits: 40}); err != nil {
		t.Fatal(err)
	}
	if sp, err := s.Spent(ctx); err != nil || sp.Today != 40 {
		t.Fatalf("spent %+v, %v; want 40 today", sp, err)
	}
	unpriced := studio.SetRequest{Line: 2, Op: api.OpText2Video, Body: map[string]any{"model": "svcq1", "prompt": "slow"}}
	var ce *studio.CapError
	s.Config.DailyCreditCap = 50
	_, _, _, err = runSet(t, s, append(setRequests("slow"), unpriced), false)
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "this batch costs 40 more") {
		t.Errorf("a batch of at least 40 credits with 10 left: %v; want refused", err)
	}
	if n := svc.postsOf("slow"); n != 0 {
		t.Errorf("%d lines sent past the cap", n)
	}
}

// Close ends the studio's own look-ups: a price read from a slow history
// (a team's database far away) ends with the studio, rather than hold a
// connection and a goroutine after a quit or a backend switch.
func TestCloseEndsALookUpUnderWay(t *testing.T) {
	isolated(t)
	srv := httptest.NewServer(newSetService())
	t.Cleanup(srv.Close)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	held := make(chan struct{}, 1)
	gate(t, func(ctx context.Context, query string) error {
		if !strings.Contains(query, "AND credits > 0") { // the read of a like task's price
			return nil
		}
		select {
		case held <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-release:
			return errors.New("released at the test's end")
		}
	})
	cfg := resolved(t, studio.Config{APIKey: "key-0123456789", BaseURL: srv.URL})
	s, err := studio.Open(context.Background(), cfg, studio.Options{SendOnly: true, History: []history.Option{history.WithDriver(gatedDriver())}})
	if err != nil {
		t.Fatal(err)
	}
	priced := make(chan studio.Price, 1)
	go func() { priced <- s.Price(api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p"}) }()
	select {
	case <-held:
	case <-time.After(20 * time.Second): // a hang guard: the price is read at once
		t.Fatal("the price was never looked up")
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waits for a price look-up under way")
	}
	select {
	case p := <-priced:
		if p.Known {
			t.Errorf("a look-up ended by Close gave a price: %+v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the price look-up goes on after Close")
	}
}

// A set with five tasks at the service sends its sixth line as soon as one
// of the five is given up as lost (the service does not know it): the
// slot it held is free, and the set does not wait for its next beat.
func TestASetSendsOnWhenOneOfItsTasksIsLost(t *testing.T) {
	svc := newSetService()
	s := openSetStudio(t, svc)
	ctx, cancel := context.WithCancel(context.Background())
	reqs := setRequests("slow", "slow", "slow", "slow", "slow", "slow")
	id, _, err := s.Record().OpenSet(ctx, record.SetBatch, "", "six", studio.SetMembers(reqs))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.NewSetRun(id, "batch", reqs).Run(ctx) }()
	defer func() { cancel(); <-done }()
	posted := func(n int, within time.Duration) bool {
		for deadline := time.Now().Add(within); svc.postsOf("slow") < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				return false
			}
		}
		return true
	}
	if !posted(5, 10*time.Second) { // a hang guard: five go at once
		t.Fatalf("%d of the first five sent", svc.postsOf("slow"))
	}
	time.Sleep(50 * time.Millisecond) // room for a sixth send, were it wrongly allowed
	if n := svc.postsOf("slow"); n != 5 {
		t.Fatalf("%d sent with five at the service", n)
	}
	s.PublishForTest(studio.Event{Kind: studio.EventLost, TaskID: "t1", Operation: api.OpText2Video, Err: errors.New("TaskNotFound"), At: time.Now()})
	if !posted(6, 5*time.Second) {
		t.Fatal("the sixth line still waits after a lost task freed its slot")
	}
}
