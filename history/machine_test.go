package history

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// succeeded is tk, sent on s, finished with one creation at url.
func succeeded(t *testing.T, s *Store, tk, url string, expires time.Time) {
	t.Helper()
	submitted(t, s, tk, `{"prompt":"x"}`)
	if _, err := s.ApplyResult(context.Background(), tk, record.Update{State: api.StateSuccess,
		Creations: []record.Creation{{URL: url, URLExpiresAt: expires}}}); err != nil {
		t.Fatal(err)
	}
}

// What belongs to one machine (its saved files and their leases, its scene
// versions' files, its upload cache) is in the machine file in its data
// folder, private to its user, and not in the team's database, where the
// other machines learn only that a result was saved, and where.
func TestTeamMachineRowsLiveInTheMachineFile(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a, b := open(WithMachine("a")), open(WithMachine("b"))
	ctx := context.Background()
	succeeded(t, a, "tk-1", "https://files/1.mp4", time.Time{})
	id, err := a.QueueDownload(ctx, "tk-1", 0, record.KindURL, "/a/1.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Path: "/a/1.mp4", Bytes: 4, Total: 4}); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.StartVersionDownload(ctx, "job-1", "sub-1", "/a/v1.mp4", time.Minute); !ok || err != nil {
		t.Fatalf("a version's save: %v %v", ok, err)
	}
	up := record.Upload{SHA256: "ab12", URI: "https://uploads/ab12", ContentType: "image/png", Size: 4,
		CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := a.RecordUpload(ctx, up); err != nil {
		t.Fatal(err)
	}

	// Another store on a's machine file (another process of a) reads
	// them all there.
	file, err := Open(a.local.where)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if dls, err := file.Downloads(ctx, "tk-1"); err != nil || len(dls) != 1 || dls[0].Path != "/a/1.mp4" || dls[0].Status != record.DownloadDone {
		t.Errorf("the machine file's downloads: %+v %v", dls, err)
	}
	if vs, err := file.UnfinishedVersionDownloads(ctx, -time.Hour); err != nil || len(vs) != 1 || vs[0].Path != "/a/v1.mp4" {
		t.Errorf("the machine file's version saves: %+v %v", vs, err)
	}
	if got, ok, err := file.UploadOf(ctx, "ab12", t0); !ok || err != nil || got.URI != up.URI {
		t.Errorf("the machine file's upload: %+v %v %v", got, ok, err)
	}
	if fi, err := os.Stat(a.local.where); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the machine file: %v %v", fi, err)
	}

	// The team's database has no table of them, only the save.
	for _, table := range []string{"downloads", "version_downloads", "uploads"} {
		var found *string
		if err := a.r.QueryRowContext(ctx, `SELECT to_regclass(?)::text`, table).Scan(&found); err != nil || found != nil {
			t.Errorf("the team's database has %s: %v", table, err)
		}
	}
	if tb, err := b.TaskByID(ctx, "tk-1"); err != nil || !slices.Equal(tb.SavedOn, []string{"a"}) {
		t.Errorf("b's detail: saved on %v (%v)", tb.SavedOn, err)
	}
	if _, ok, _ := b.UploadOf(ctx, "ab12", t0); ok {
		t.Error("b reuses an upload a's key made")
	}
	if vs, _ := b.UnfinishedVersionDownloads(ctx, -time.Hour); len(vs) != 0 {
		t.Errorf("b resumes a's version saves: %+v", vs)
	}
}

// A download kept in the machine file is fetched from the URL the team's
// database holds now: the poller, on any machine, renews an expired
// signature there.
func TestTeamDownloadFetchesTheRenewedURL(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a, poller := open(WithMachine("a")), open(WithMachine("p"))
	ctx := context.Background()
	first, renewed := t0.Add(time.Hour), t0.Add(25*time.Hour)
	succeeded(t, a, "tk-1", "https://files/1.mp4?sig=old", first)
	id, err := a.QueueDownload(ctx, "tk-1", 0, record.KindURL, "/a/1.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := poller.ApplyResult(ctx, "tk-1", record.Update{State: api.StateSuccess,
		Creations: []record.Creation{{URL: "https://files/1.mp4?sig=new", URLExpiresAt: renewed}}}); err != nil {
		t.Fatal(err)
	}
	pending, err := a.PendingDownloads(ctx)
	if err != nil || len(pending) != 1 || pending[0].URL != "https://files/1.mp4?sig=new" || !pending[0].ExpiresAt.Equal(renewed) {
		t.Fatalf("pending: %+v %v", pending, err)
	}
	d, err := a.ClaimDownload(ctx, id, "a/1/x", time.Minute)
	if err != nil || d.URL != "https://files/1.mp4?sig=new" {
		t.Errorf("claimed: %+v %v", d, err)
	}
	dls, err := a.Downloads(ctx, "tk-1")
	if err != nil || len(dls) != 1 || dls[0].URL != "https://files/1.mp4?sig=new" || dls[0].Owner != "a/1/x" {
		t.Errorf("listed: %+v %v", dls, err)
	}
}

// Pending downloads come the URL that expires first first, by the
// expiry the team's database holds now.
func TestTeamPendingDownloadsByExpiry(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a, poller := open(WithMachine("a")), open(WithMachine("p"))
	ctx := context.Background()
	succeeded(t, a, "tk-late", "https://files/late.mp4", t0.Add(3*time.Hour))
	succeeded(t, a, "tk-none", "https://files/none.mp4", time.Time{})
	succeeded(t, a, "tk-soon", "https://files/soon.mp4", t0.Add(time.Hour))
	for _, tk := range []string{"tk-late", "tk-none", "tk-soon"} {
		if _, err := a.QueueDownload(ctx, tk, 0, record.KindURL, "/a/"+tk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := poller.ApplyResult(ctx, "tk-late", record.Update{State: api.StateSuccess,
		Creations: []record.Creation{{URL: "https://files/late.mp4?sig=2", URLExpiresAt: t0.Add(30 * time.Minute)}}}); err != nil {
		t.Fatal(err)
	}
	pending, err := a.PendingDownloads(ctx)
	var order []string
	for _, d := range pending {
		order = append(order, d.TaskID)
	}
	if err != nil || !slices.Equal(order, []string{"tk-late", "tk-soon", "tk-none"}) {
		t.Errorf("pending in the order %v (%v)", order, err)
	}
}

// A team's database made anew gives its ids again: a machine file of the
// old one keeps nothing of another task under a reused id, and fetches
// nothing the new database does not hold.
func TestTeamDatabaseMadeAnewInheritsNoSavedFile(t *testing.T) {
	teamOnly(t)
	ctx := context.Background()
	old := sharedDatabase(t)(WithMachine("a"))
	submitted(t, old, "tk-old", `{"prompt":"x"}`)
	if _, err := old.ApplyResult(ctx, "tk-old", record.Update{State: api.StateSuccess,
		Creations: []record.Creation{{URL: "https://files/old.mp4"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.QueueDownload(ctx, "tk-old", 0, record.KindURL, "/a/old.mp4"); err != nil {
		t.Fatal(err)
	}
	file := old.local.where

	anew := sharedDatabase(t)
	probe := anew(WithMachine("probe"))
	s, err := OpenPostgres(ctx, probe.url, file, WithMachine("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	succeeded(t, s, "tk-new", "https://files/new.mp4", time.Time{})
	if o, n := idOf(t, old, "tk-old"), idOf(t, s, "tk-new"); o != n {
		t.Fatalf("the new database gave tk-new id %d, not the old tk-old's %d", n, o)
	}
	if pending, err := s.PendingDownloads(ctx); err != nil || len(pending) != 0 {
		t.Errorf("a task the new database does not hold is fetched: %+v %v", pending, err)
	}
	if dls, err := s.Downloads(ctx, "tk-new"); err != nil || len(dls) != 0 {
		t.Errorf("tk-new, of the old task's id, has its downloads: %+v %v", dls, err)
	}
	if _, err := s.QueueDownload(ctx, "tk-new", 0, record.KindURL, "/a/new.mp4"); err != nil {
		t.Fatal(err)
	}
	pending, err := s.PendingDownloads(ctx)
	if err != nil || len(pending) != 1 || pending[0].TaskID != "tk-new" || pending[0].URL != "https://files/new.mp4" {
		t.Errorf("pending: %+v %v", pending, err)
	}
}

// Another process of this machine saving a file writes the machine file,
// not the team's database: the watch looks at the file too.
func TestTeamWatchSeesTheMachineFile(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a1, a2 := open(WithMachine("a")), open(WithMachine("a"))
	ctx := context.Background()
	succeeded(t, a1, "tk-1", "https://files/1.mp4", time.Time{})
	id, err := a1.QueueDownload(ctx, "tk-1", 0, record.KindURL, "/a/1.mp4")
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 100)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- a1.WatchChanges(wctx, 10*time.Millisecond, record.ChangeWatch{Changed: func() { changed <- struct{}{} }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the watch: %v", err)
		}
	}()
	expect(t, changed, "the catch-up after connecting")
	settle(changed)
	if err := a2.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadRunning, Bytes: 1, Total: 4}); err != nil {
		t.Fatal(err)
	}
	expect(t, changed, "another process's progress in the machine file")
}

func idOf(t *testing.T, s *Store, tk string) int64 {
	t.Helper()
	var id int64
	if err := s.r.QueryRowContext(context.Background(), `SELECT id FROM tasks WHERE task_id = ?`, tk).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// A task sent from a copy that ended while the copy was closed (a
// teammate's poller read its end) is that copy's to save when it starts:
// while its result URL lasts, until it is saved, and never a teammate's.
func TestTeamUnsavedSuccessesOfThisCopy(t *testing.T) {
	teamOnly(t)
	clk := &fakeClock{t: t0}
	open := sharedDatabase(t)
	ann := open(WithMachine("ann@a"), WithSender("acct", "ann@a"), WithClock(clk.Now))
	poller := open(WithMachine("bob@b"), WithSender("acct", "bob@b"), WithClock(clk.Now))
	ctx := context.Background()
	unsaved := func(s *Store, sentBy string) []string {
		t.Helper()
		ids, err := s.UnsavedSuccesses(ctx, sentBy, clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	old := t0.Add(-73 * time.Hour)
	clk.t = old
	submitted(t, ann, "tk-three-days-ago", `{"prompt":"x"}`)
	clk.t = t0
	for _, tk := range []string{"tk-valid", "tk-expired", "tk-running", "tk-three-days-ago"} {
		if tk != "tk-three-days-ago" {
			submitted(t, ann, tk, `{"prompt":"x"}`)
		}
	}
	submitted(t, poller, "tk-bobs", `{"prompt":"x"}`)
	end := func(tk, state string, expires time.Time) {
		t.Helper()
		if _, err := poller.ApplyResult(ctx, tk, record.Update{State: state,
			Creations: []record.Creation{{URL: "https://files/" + tk + ".mp4", URLExpiresAt: expires}}}); err != nil {
			t.Fatal(err)
		}
	}
	end("tk-valid", api.StateSuccess, t0.Add(24*time.Hour))
	end("tk-expired", api.StateSuccess, t0.Add(-time.Minute))
	end("tk-three-days-ago", api.StateSuccess, t0.Add(24*time.Hour))
	end("tk-bobs", api.StateSuccess, t0.Add(24*time.Hour))
	if got := unsaved(ann, "ann@a"); !slices.Equal(got, []string{"tk-valid"}) {
		t.Errorf("ann's to save: %v, want tk-valid", got)
	}
	if got := unsaved(poller, "bob@b"); !slices.Equal(got, []string{"tk-bobs"}) {
		t.Errorf("bob's to save: %v, want tk-bobs alone", got)
	}
	// Saved on ann's machine: nothing left to catch up there.
	id, err := ann.QueueDownload(ctx, "tk-valid", 0, record.KindURL, "/a/valid.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if err := ann.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Bytes: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	if got := unsaved(ann, "ann@a"); len(got) != 0 {
		t.Errorf("ann's to save after saving: %v", got)
	}
}

// A history file is one machine's, whose copies see their tasks end: none
// is left to catch up.
func TestFileHasNoUnsavedSuccesses(t *testing.T) {
	sqliteOnly(t)
	s, clk := newStore(t)
	succeeded(t, s, "tk-1", "https://files/1.mp4", clk.Now().Add(time.Hour))
	if ids, err := s.UnsavedSuccesses(context.Background(), "", clk.Now()); err != nil || len(ids) != 0 {
		t.Errorf("%v %v", ids, err)
	}
}

// What a copy of this machine saw end is not caught up: a result its user
// chose not to save (auto-download off, --no-download: LeaveUnsaved), and
// one it saved whose report to the team's database failed (that report is
// made then, so the team sees 'saved on NAME').
func TestTeamUnsavedSuccessesLeaveWhatThisMachineSawEnd(t *testing.T) {
	teamOnly(t)
	clk := &fakeClock{t: t0}
	open := sharedDatabase(t)
	ann := open(WithMachine("ann@a"), WithSender("acct", "ann@a"), WithClock(clk.Now))
	bob := open(WithMachine("bob@b"), WithSender("acct", "bob@b"), WithClock(clk.Now))
	ctx := context.Background()
	for _, tk := range []string{"tk-declined", "tk-saved", "tk-closed"} {
		submitted(t, ann, tk, `{"prompt":"x"}`)
		if _, err := bob.ApplyResult(ctx, tk, record.Update{State: api.StateSuccess,
			Creations: []record.Creation{{URL: "https://files/" + tk + ".mp4", URLExpiresAt: t0.Add(24 * time.Hour)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ann.LeaveUnsaved(ctx, "tk-declined"); err != nil {
		t.Fatal(err)
	}
	id, err := ann.QueueDownload(ctx, "tk-saved", 0, record.KindURL, "/a/saved.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if err := ann.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Bytes: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	// The team's database did not hear of the save (it was down then).
	if _, err := ann.w.ExecContext(ctx, `DELETE FROM saved_copies`); err != nil {
		t.Fatal(err)
	}
	got, err := ann.UnsavedSuccesses(ctx, "ann@a", clk.Now())
	if err != nil || !slices.Equal(got, []string{"tk-closed"}) {
		t.Errorf("ann's to save: %v (%v), want tk-closed alone", got, err)
	}
	if saved, err := bob.TaskByID(ctx, "tk-saved"); err != nil || !slices.Equal(saved.SavedOn, []string{"ann@a"}) {
		t.Errorf("bob sees tk-saved saved on %v (%v), want ann@a", saved.SavedOn, err)
	}
	// A history file has nothing to leave.
	if err := open(WithMachine("ann@a")).local.LeaveUnsaved(ctx, "tk-closed"); err != nil {
		t.Error(err)
	}
}

// A download of the old database's task that ends after the database was
// made anew tells the new one nothing: its task of that id is another.
func TestTeamSaveOfTheOldDatabaseIsNotTheNewTasks(t *testing.T) {
	teamOnly(t)
	ctx := context.Background()
	old := sharedDatabase(t)(WithMachine("a"))
	succeeded(t, old, "tk-old", "https://files/old.mp4", time.Time{})
	id, err := old.QueueDownload(ctx, "tk-old", 0, record.KindURL, "/a/old.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.ClaimDownload(ctx, id, "me", time.Hour); err != nil {
		t.Fatal(err)
	}
	anew := sharedDatabase(t)
	bob := anew(WithMachine("bob"))
	s, err := OpenPostgres(ctx, bob.url, old.local.where, WithMachine("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	succeeded(t, bob, "tk-new", "https://files/new.mp4", time.Time{})
	if o, n := idOf(t, old, "tk-old"), idOf(t, s, "tk-new"); o != n {
		t.Fatalf("the new database gave tk-new id %d, not the old tk-old's %d", n, o)
	}
	if err := s.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Owner: "me", Bytes: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	if tk, err := bob.TaskByID(ctx, "tk-new"); err != nil || len(tk.SavedOn) != 0 {
		t.Errorf("tk-new saved on %v (%v): a's save was of the old database's task", tk.SavedOn, err)
	}
}

// The team database's notifications and the machine file's probe each
// report changes, and the watcher's Changed is told of them one at a time.
func TestTeamWatchTellsOfChangesOneAtATime(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a1, a2, b := open(WithMachine("a")), open(WithMachine("a")), open(WithMachine("b"))
	ctx := context.Background()
	succeeded(t, a1, "tk-1", "https://files/1.mp4", time.Time{})
	id, err := a1.QueueDownload(ctx, "tk-1", 0, record.KindURL, "/a/1.mp4")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu           sync.Mutex
		inside, most int
		calls        int
	)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- a1.WatchChanges(wctx, 2*time.Millisecond, record.ChangeWatch{Changed: func() {
			mu.Lock()
			inside++
			calls++
			most = max(most, inside)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			inside--
			mu.Unlock()
		}})
	}()
	for i := range 40 {
		// One change in the machine file, one in the team's database.
		if err := a2.UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadRunning, Bytes: int64(i), Total: 100}); err != nil {
			t.Fatal(err)
		}
		submitted(t, b, fmt.Sprintf("tk-b-%d", i), `{"prompt":"x"}`)
		time.Sleep(3 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if most != 1 || calls < 10 {
		t.Errorf("Changed ran %d at once, called %d times", most, calls)
	}
}

// An off-peak task may end up to two days after it was sent, and its
// result URL lasts a day from then: sent 50 hours ago and ended an hour
// ago, it is caught up too.
func TestTeamUnsavedSuccessesOfAnOffPeakTask(t *testing.T) {
	teamOnly(t)
	clk := &fakeClock{t: t0.Add(-50 * time.Hour)}
	open := sharedDatabase(t)
	ann := open(WithMachine("ann@a"), WithSender("acct", "ann@a"), WithClock(clk.Now))
	submitted(t, ann, "tk-off-peak", `{"prompt":"x","off_peak":true}`)
	clk.t = t0.Add(-time.Hour)
	if _, err := ann.ApplyResult(context.Background(), "tk-off-peak", record.Update{State: api.StateSuccess,
		Creations: []record.Creation{{URL: "https://files/op.mp4", URLExpiresAt: clk.t.Add(24 * time.Hour)}}}); err != nil {
		t.Fatal(err)
	}
	clk.t = t0
	if got, err := ann.UnsavedSuccesses(context.Background(), "ann@a", t0); err != nil || !slices.Equal(got, []string{"tk-off-peak"}) {
		t.Errorf("ann's to save: %v (%v), want tk-off-peak", got, err)
	}
}

func withPoolIdle(d time.Duration) Option { return func(s *Store) { s.idle = d } }

// A copy left open and quiet gives its pooled connections back to the team
// server after five minutes (README, Team), shortened here; a query after
// opens one again.
func TestTeamQuietConnectionsAreGivenBack(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	if s := open(WithMachine("default")); s.idle != 5*time.Minute {
		t.Errorf("a copy's idle connections are kept %v, not five minutes", s.idle)
	}
	quiet, observer := open(WithMachine("quiet"), withPoolIdle(200*time.Millisecond)), open(WithMachine("observer"))
	ctx := context.Background()
	connections := func() int {
		t.Helper()
		var n int
		if err := observer.r.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'clapper quiet' AND datname = current_database()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	submitted(t, quiet, "tk-1", `{"prompt":"x"}`)
	if _, err := quiet.TaskByID(ctx, "tk-1"); err != nil {
		t.Fatal(err)
	}
	if n := connections(); n == 0 {
		t.Fatal("no connection of the quiet copy after its queries")
	}
	for deadline := time.Now().Add(10 * time.Second); connections() > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections of a quiet copy still open", connections())
		}
	}
	if _, err := quiet.TaskByID(ctx, "tk-1"); err != nil {
		t.Errorf("a query after the connections were given back: %v", err)
	}
}
