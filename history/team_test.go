package history

import (
	"context"
	"errors"
	neturl "net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/internal/pgtest"
	"clapper/record"
)

// teamOnly skips a test of what only a team's database does (notifications,
// machines, the database's clock) when the store tests run on a file.
func teamOnly(t *testing.T) {
	t.Helper()
	if backend != "postgres" {
		t.Skip("a team database's behaviour: runs with -store=postgres")
	}
}

// watch starts WatchChanges on s and returns its signals.
func watch(t *testing.T, s *Store) (changed, freed chan struct{}) {
	t.Helper()
	changed, freed = make(chan struct{}, 100), make(chan struct{}, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.WatchChanges(ctx, time.Hour, record.ChangeWatch{
			Changed:     func() { changed <- struct{}{} },
			PollerFreed: func() { freed <- struct{}{} },
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	// The first signal is the catch-up after connecting.
	expect(t, changed, "the catch-up after connecting")
	return changed, freed
}

func expect(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no signal: %s", what)
	}
}

// settle drains ch until it has been silent a while.
func settle(ch chan struct{}) {
	for {
		select {
		case <-ch:
		case <-time.After(300 * time.Millisecond):
			return
		}
	}
}

func quiet(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("a signal for %s", what)
	case <-time.After(300 * time.Millisecond):
	}
}

// A write on one machine reaches the other as a notification at once; a
// machine is not told of its own writes; a write that changes nothing says
// nothing.
func TestTeamChangesAreNotifiedToOtherMachines(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a, b := open(WithMachine("a")), open(WithMachine("b"))
	changed, _ := watch(t, b)
	submitted(t, a, "tk-1", `{"prompt":"from a"}`)
	expect(t, changed, "a task a sent")
	settle(changed) // a's submit is two commits, and two notifications
	submitted(t, b, "tk-2", `{"prompt":"from b"}`)
	quiet(t, changed, "b's own write")
	if _, err := a.ClaimPoller(context.Background(), "a/1/x", time.Now(), time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	quiet(t, changed, "a poller lease (no screen shows it)")
}

// The listening connection is killed (as by a server restart or
// pg_terminate_backend): the link is reported down, then back, and a
// change made meanwhile is caught up on reconnecting.
func TestTeamReconnectCatchesUp(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a, b := open(WithMachine("a")), open(WithMachine("b"))
	changed, _ := watch(t, b)
	ctx := context.Background()
	if _, err := a.w.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE query LIKE 'LISTEN%' AND datname = current_database()`); err != nil {
		t.Fatal(err)
	}
	submitted(t, a, "tk-while-down", `{"prompt":"sent while b was away"}`)
	// Down, then the catch-up of the reconnect (at least one signal each).
	expect(t, changed, "the link going down or coming back")
	deadline := time.Now().Add(10 * time.Second)
	for !b.Reach().Up && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !b.Reach().Up {
		t.Fatalf("not reconnected: %+v", b.Reach())
	}
	tasks, _, err := b.FollowableSince(ctx, 0)
	if err != nil || len(tasks) != 1 || tasks[0].TaskID != "tk-while-down" {
		t.Fatalf("after the reconnect: %+v %v", tasks, err)
	}
}

// The poller's lease is the database's: a claim with another machine's
// lease live is refused however the claimer's clock reads; a release
// tells the others at once.
func TestTeamPollerLeaseByTheDatabaseClock(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a := open(WithMachine("a"), WithSender("acct-1", "ann@a"))
	b := open(WithMachine("b"), WithSender("acct-1", "bob@b"))
	other := open(WithMachine("c"), WithSender("acct-2", "cy@c"))
	ctx := context.Background()
	if h, err := a.ClaimPoller(ctx, "a/1/x", time.Now(), time.Minute, nil); err != nil || h != "a/1/x" {
		t.Fatalf("a's claim: %q %v", h, err)
	}
	// b's clock runs an hour ahead: the lease still holds.
	if h, err := b.ClaimPoller(ctx, "b/1/y", time.Now().Add(time.Hour), time.Minute, nil); err != nil || h != "a/1/x" {
		t.Fatalf("b's claim with its clock ahead: %q %v", h, err)
	}
	// Another account has its own poller.
	if h, err := other.ClaimPoller(ctx, "c/1/z", time.Now(), time.Minute, nil); err != nil || h != "c/1/z" {
		t.Fatalf("another account's claim: %q %v", h, err)
	}
	_, freed := watch(t, b)
	if err := a.ReleasePoller(ctx, "a/1/x"); err != nil {
		t.Fatal(err)
	}
	expect(t, freed, "a's resignation")
	if h, err := b.ClaimPoller(ctx, "b/1/y", time.Now(), time.Minute, nil); err != nil || h != "b/1/y" {
		t.Fatalf("b's claim after a resigned: %q %v", h, err)
	}
	// A short lease ends by the database's clock, whatever a's clock says.
	if h, err := b.ClaimPoller(ctx, "b/1/y", time.Now(), 300*time.Millisecond, nil); err != nil || h != "b/1/y" {
		t.Fatal(h, err)
	}
	time.Sleep(400 * time.Millisecond)
	if h, err := a.ClaimPoller(ctx, "a/1/x", time.Now().Add(-time.Hour), time.Minute, nil); err != nil || h != "a/1/x" {
		t.Fatalf("a's claim after b's lease ended: %q %v", h, err)
	}
}

// Each machine has its own saved files: the same result queued on two
// machines is two downloads, each listed only where it is (each in its
// machine file, of ids of its own).
func TestTeamDownloadsBelongToTheirMachine(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a, b := open(WithMachine("a")), open(WithMachine("b"))
	ctx := context.Background()
	submitted(t, a, "tk-1", `{"prompt":"x"}`)
	if _, err := a.ApplyResult(ctx, "tk-1", record.Update{State: api.StateSuccess,
		Creations: []record.Creation{{URL: "https://files/1.mp4"}}}); err != nil {
		t.Fatal(err)
	}
	ia, err := a.QueueDownload(ctx, "tk-1", 0, record.KindURL, "/a/1.mp4")
	if err != nil {
		t.Fatal(err)
	}
	ib, err := b.QueueDownload(ctx, "tk-1", 0, record.KindURL, "/b/1.mp4")
	if err != nil {
		t.Fatalf("b's download %d (a's %d): %v", ib, ia, err)
	}
	for _, c := range []struct {
		s    *Store
		path string
	}{{a, "/a/1.mp4"}, {b, "/b/1.mp4"}} {
		dls, err := c.s.Downloads(ctx, "tk-1")
		if err != nil || len(dls) != 1 || dls[0].Path != c.path {
			t.Errorf("%s lists %+v (%v)", c.s.machine, dls, err)
		}
		pending, _ := c.s.PendingDownloads(ctx)
		if len(pending) != 1 || pending[0].Path != c.path {
			t.Errorf("%s has pending %+v", c.s.machine, pending)
		}
	}
	// Saved on a: b's detail says so; a's own copy is no "elsewhere".
	if err := a.UpdateDownload(ctx, ia, record.DownloadProgress{Status: record.DownloadDone, Bytes: 10, Total: 10}); err != nil {
		t.Fatal(err)
	}
	if tb, err := b.TaskByID(ctx, "tk-1"); err != nil || !slices.Equal(tb.SavedOn, []string{"a"}) {
		t.Errorf("b's detail: saved on %v (%v)", tb.SavedOn, err)
	}
	if ta, err := a.TaskByID(ctx, "tk-1"); err != nil || len(ta.SavedOn) != 0 {
		t.Errorf("a's detail: saved on %v (%v)", ta.SavedOn, err)
	}
	if ok, _ := b.SavedFile(ctx, "/a/1.mp4"); ok {
		t.Error("b trusts a path only a saved")
	}
}

// Every way a team database can fail to open is named, with the URL and
// never its password.
func TestTeamOpenFailuresNameTheURL(t *testing.T) {
	teamOnly(t)
	srv := pgtest.Get(t)
	ctx := context.Background()
	url := srv.Database(t, "", nil)
	s, err := OpenPostgres(ctx, url, machineFile(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `UPDATE clapper_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = OpenPostgres(ctx, url, machineFile(t))
	var tooNew *SchemaTooNewError
	if !errors.As(err, &tooNew) || tooNew.Found != 99 || !strings.Contains(err.Error(), Redact(url)) ||
		!strings.Contains(err.Error(), "newer than this clapper knows") {
		t.Errorf("a newer schema: %v", err)
	}
	u, _ := neturl.Parse(url)
	for _, c := range []struct {
		edit func(u *neturl.URL)
		want string
	}{
		{func(u *neturl.URL) { u.User = neturl.UserPassword("nobody", "s3cret") }, "refused the user or password"},
		{func(u *neturl.URL) { u.User = neturl.UserPassword("postgres", "s3cret"); u.Path = "/no_such_db" }, "no such database"},
		{func(u *neturl.URL) { u.User = neturl.UserPassword("postgres", "s3cret"); u.Host = "127.0.0.1:1" }, "cannot reach the server"},
		// With TLS preferred (no sslmode) each of the two attempts fails
		// alike: the reason is said once.
		{func(u *neturl.URL) {
			u.User, u.Host, u.RawQuery = neturl.UserPassword("postgres", "s3cret"), "127.0.0.1:1", ""
		}, "cannot reach the server: connection refused"},
	} {
		bad := *u
		c.edit(&bad)
		_, err := OpenPostgres(ctx, bad.String(), machineFile(t))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cret") ||
			!strings.Contains(err.Error(), Redact(bad.String())) || strings.Count(err.Error(), c.want) != 1 || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", Redact(bad.String()), err)
		}
	}
	if _, err := OpenPostgres(ctx, "postgres://ann:s3cret@db host/x", machineFile(t)); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a URL that cannot be read: %v", err)
	}
}

// A history URL in PostgreSQL's keyword form (which clapper refuses) is
// shown without its password too, quoted or not, as is a URL's.
func TestRedactHidesEveryPassword(t *testing.T) {
	for raw, want := range map[string]string{
		"host=db port=5432 user=ann password=WRONGpass123 dbname=studio":  "host=db port=5432 user=ann password=(hidden) dbname=studio",
		"host=db PASSWORD = 'two words\\' q' dbname=studio":               "host=db PASSWORD = (hidden) dbname=studio",
		"postgres://ann:s3cret@db:5432/studio?sslmode=disable":            "postgres://ann@db:5432/studio?sslmode=disable",
		"postgresql://db/studio?password=s3cret&application_name=clapper": "postgresql://db/studio?application_name=clapper",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}

// A team's connections name the copy of clapper they serve, so the
// server's keeper can tell the machines apart.
func TestTeamConnectionsNameTheirMachine(t *testing.T) {
	teamOnly(t)
	s := sharedDatabase(t)(WithMachine("ann@studio-1"))
	var name string
	if err := s.r.QueryRowContext(context.Background(), `SELECT current_setting('application_name')`).Scan(&name); err != nil || name != "clapper ann@studio-1" {
		t.Errorf("application_name %q (%v), want clapper ann@studio-1", name, err)
	}
}
