package studio_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/internal/pgtest"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// team is one team database and one service (a sandbox on a fake clock)
// shared by copies of clapper on one account.
type team struct {
	url, base string
	clk       *sandbox.FakeClock
}

func newTeam(t *testing.T) *team {
	isolated(t)
	tm := &team{url: pgtest.Get(t).Database(t, "", nil), clk: sandbox.NewFakeClock(wiringT0)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	base, _, stop, err := sandbox.Listen(ctx, "", sandbox.Config{Clock: tm.clk, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	tm.base = base
	return tm
}

// copy opens a copy of clapper of the team, with a data folder of its own;
// sentBy names it ("": its machine), tune changes its settings.
func (tm *team) copy(t *testing.T, sentBy string, tune func(*studio.Config)) *studio.Studio {
	t.Helper()
	cfg := resolved(t, studio.Config{HistoryURL: tm.url, HistoryURLGiven: true, BaseURL: tm.base, APIKey: "k-team"})
	if tune != nil {
		tune(&cfg)
	}
	s, err := studio.Open(context.Background(), cfg, studio.Options{Clock: tm.clk.Now, SentBy: sentBy, Watcher: track.WatcherOptions{Clock: tm.clk}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Two machines of one account on one team database spend from one pool:
// what one sent counts against the daily cap the other checks.
func TestTeamCapHoldsAcrossMachines(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	capped := func(c *studio.Config) { c.DailyCreditCap = 100 }
	a, b := tm.copy(t, "", capped), tm.copy(t, "", capped)
	body := map[string]any{"model": "svcq3-pro", "prompt": "a fox", "duration": 5}
	// The service publishes no prices: a sends until its cap, which it
	// checks with what it spent, refuses.
	spent := int64(0)
	for spent < 100 {
		sub, err := a.Submit(ctx, api.OpText2Video, body)
		if err != nil {
			t.Fatal(err)
		}
		if sub.Task.Credits <= 0 {
			t.Fatalf("a task of no credits: %+v", sub.Task)
		}
		spent += int64(sub.Task.Credits)
	}
	price := a.Price(api.OpText2Video, body)
	got, err := b.Spent(ctx)
	if err != nil || got.Today != spent {
		t.Fatalf("b sees %+v (%v), a spent %d", got, err, spent)
	}
	var ce *studio.CapError
	if err := b.CheckSpendCaps(ctx, price, ""); !errors.As(err, &ce) || ce.Spent != spent {
		t.Fatalf("b may send past the team's cap: %v", err)
	}
}

// On a team's database the account is read once for every machine: a read
// kept by one is what another shows while it is fresh, and a machine reads
// the service itself once it is not.
func TestTeamAccountIsReadOnceForEveryMachine(t *testing.T) {
	tm := newTeam(t)
	ctx, clk := context.Background(), tm.clk
	a, b := tm.copy(t, "", nil), tm.copy(t, "", nil)
	first, err := a.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// a spends: the service's count moves, the kept read does not.
	if _, err := a.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "a fox"}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Account(ctx)
	if err != nil || got.Remaining != first.Remaining {
		t.Fatalf("b shows %+v (%v), the kept read says %d", got, err, first.Remaining)
	}
	clk.Advance(3 * time.Minute)
	got, err = b.Account(ctx)
	if err != nil || got.Remaining >= first.Remaining {
		t.Fatalf("a stale read must be read again from the service: %+v (%v), kept %d", got, err, first.Remaining)
	}
}

// Two copies of clapper on one host, each with its own data folder, are two
// machines of the team: what one saved is its own, and reads "saved on" it
// in the other, which has saved nothing until it fetches the result itself.
func TestTeamCopiesWithDataFoldersOfTheirOwnSaveApart(t *testing.T) {
	isolated(t)
	url := pgtest.Get(t).Database(t, "", nil)
	clk := sandbox.NewFakeClock(wiringT0)
	ctx := context.Background()
	cfgA := resolved(t, studio.Config{HistoryURL: url, HistoryURLGiven: true})
	cfgB := resolved(t, studio.Config{HistoryURL: url, HistoryURLGiven: true})
	if cfgA.Machine() == cfgB.Machine() {
		t.Fatalf("two data folders, one machine name %q", cfgA.Machine())
	}
	a, b := openSandbox(t, cfgA, clk), openSandbox(t, cfgB, clk)
	sub, err := a.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Minute)
	a.Poll(ctx)
	done, err := a.Record().Task(ctx, sub.LocalID)
	if err != nil || done.State != api.StateSuccess {
		t.Fatalf("the image did not finish: %+v %v", done, err)
	}
	if err := a.Download(ctx, done); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Settle(ctx, done.TaskID); err != nil {
		t.Fatal(err)
	}
	saved := func(s *studio.Studio) int {
		ds, err := s.Record().Downloads(ctx, done.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range ds {
			if d.Status == record.DownloadDone {
				n++
			}
		}
		return n
	}
	if saved(a) == 0 {
		t.Fatal("a saved nothing")
	}
	if n := saved(b); n != 0 {
		t.Errorf("b holds %d saved files of a's data folder as its own", n)
	}
	tb, err := b.Record().TaskByID(ctx, done.TaskID)
	if err != nil || !slices.Equal(tb.SavedOn, []string{cfgA.Machine()}) {
		t.Errorf("b's detail: saved on %v (%v), want %s", tb.SavedOn, err, cfgA.Machine())
	}
	// a's saved file is in a's data folder, not in the team's database.
	file, err := history.Open(cfgA.TeamMachinePath())
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	ds, err := file.Downloads(ctx, done.TaskID)
	if err != nil || len(ds) == 0 || ds[0].Status != record.DownloadDone {
		t.Fatalf("a's data folder holds %+v (%v)", ds, err)
	}
	if _, err := os.Stat(ds[0].Path); err != nil {
		t.Errorf("a's saved file: %v", err)
	}
	// b fetches the result itself while its URL is valid.
	if err := b.Download(ctx, tb); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Settle(ctx, done.TaskID); err != nil {
		t.Fatal(err)
	}
	if saved(b) == 0 {
		t.Error("b could not fetch what a saved")
	}
}

// A copy of clapper is its user@host, and its data folder too when that is
// not the user's default one: two users on one host, or one user's two
// data folders, are machines of their own. $USER names the user.
func TestMachineOfTheDefaultDataFolderIsTheUserAtTheHost(t *testing.T) {
	isolated(t)
	def, err := studio.DefaultDataDir()
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if got := (studio.Config{DataDir: def}).Machine(); got != "tester@"+host {
		t.Errorf("machine of the default data folder %q, want tester@%s", got, host)
	}
	t.Setenv("USER", "ann")
	if got := (studio.Config{DataDir: def}).Machine(); got != "ann@"+host {
		t.Errorf("ann's machine %q, want ann@%s", got, host)
	}
	other := t.TempDir()
	if got := (studio.Config{DataDir: other}).Machine(); got != "ann@"+host+":"+other {
		t.Errorf("machine of %s: %q", other, got)
	}
	// A folder given relative to where clapper starts is named whole: the
	// same folder reached from two places is one machine.
	t.Chdir(other)
	if got := (studio.Config{DataDir: "data"}).Machine(); got != "ann@"+host+":"+filepath.Join(other, "data") {
		t.Errorf("machine of data in %s: %q", other, got)
	}
}

// A task that ended while the copy that sent it was closed (a teammate's
// copy read its end) is saved by that copy when it starts.
func TestTeamCopySavesOnStartWhatEndedWhileClosed(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	ann := tm.copy(t, "ann", nil)
	sub, err := ann.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a kite"})
	if err != nil {
		t.Fatal(err)
	}
	ann.Close()
	bob := tm.copy(t, "bob", nil)
	if n, err := bob.FollowInFlight(ctx); err != nil || n != 1 {
		t.Fatalf("bob follows %d (%v)", n, err)
	}
	tm.clk.Advance(10 * time.Minute)
	bob.Poll(ctx)
	if done, err := bob.Record().TaskByID(ctx, sub.Task.TaskID); err != nil || done.State != api.StateSuccess {
		t.Fatalf("bob did not see ann's task end: %+v %v", done, err)
	}
	if ds, _ := bob.Record().Downloads(ctx, sub.Task.TaskID); len(ds) != 0 {
		t.Errorf("bob saves ann's result: %+v", ds)
	}
	again := tm.copy(t, "ann", nil)
	if err := again.Start(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ds, err := again.Record().Downloads(ctx, sub.Task.TaskID)
		if err == nil && len(ds) > 0 && ds[0].Status == record.DownloadDone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ann's copy did not save the result on starting: %+v %v", ds, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// One team database is one machine file, however its URL is spelled (the
// port left out, another user, another scheme): two processes of this
// machine share its leases and do not both fetch a file. Two databases are
// two files, the default database (the user's name) too.
func TestTeamMachineFileIsOnePerDatabase(t *testing.T) {
	data := t.TempDir()
	path := func(url string) string { return studio.Config{DataDir: data, HistoryURL: url}.TeamMachinePath() }
	one := path("postgres://ann:pw@db.example:5432/team")
	for _, same := range []string{"postgres://bob@db.example/team", "postgresql://ann@db.example:5432/team?sslmode=disable"} {
		if got := path(same); got != one {
			t.Errorf("%s: %s, want %s", same, got, one)
		}
	}
	if filepath.Base(one) != "team-db.example_5432_team.db" {
		t.Errorf("the machine file: %s", one)
	}
	if a, b := path("postgres://ann@db.example"), path("postgres://bob@db.example"); a == b {
		t.Errorf("the databases ann and bob (no database named: the user's) share %s", a)
	}
	if a, b := path("postgres://ann@db.example/team"), path("postgres://ann@db.example:5433/team"); a == b {
		t.Errorf("two servers share %s", a)
	}
}

// A result answered at once (a speech) with auto-download off is left
// unsaved by choice: the copy's next start does not save it.
func TestTeamCopyLeavesUnsavedAnAnswerItChoseNotToSave(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	data := t.TempDir()
	ann := tm.copy(t, "ann", func(c *studio.Config) { c.DataDir, c.AutoDownload = data, false })
	sub, err := ann.Submit(ctx, api.OpAudioTTS, map[string]any{"text": "hello there", "voice_setting_voice_id": "English_Graceful_Lady"})
	if err != nil || sub.Task.State != api.StateSuccess {
		t.Fatalf("the speech: %+v %v", sub, err)
	}
	ann.Close()
	again := tm.copy(t, "ann", func(c *studio.Config) { c.DataDir = data })
	caught, err := again.CatchUpSaves(ctx)
	if err != nil || len(caught) != 0 {
		t.Errorf("the next start saves %v (%v)", caught, err)
	}
}

// A copy that cannot read what to catch up on says so once it starts, and
// one that can says nothing of it.
func TestTeamCatchUpFailureIsTold(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	told := func(s *studio.Studio) error {
		t.Helper()
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		for {
			select {
			case ev := <-s.Events():
				if ev.Kind == track.EventPollFailed {
					if ev.Err == nil {
						t.Fatalf("a failure told without its error: %+v", ev)
					}
					return ev.Err
				}
			case <-time.After(time.Second):
				return nil
			}
		}
	}
	if err := told(tm.copy(t, "ann", nil)); err != nil {
		t.Errorf("a copy with nothing to catch up on told of %v", err)
	}
	db, err := sql.Open("pgx", tm.url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `ALTER TABLE saved_copies RENAME TO saved_copies_away`); err != nil {
		t.Fatal(err)
	}
	if err := told(tm.copy(t, "ann", nil)); err == nil || !strings.Contains(err.Error(), "ended while clapper was closed") {
		t.Errorf("a catch-up that failed told %v", err)
	}
}

// A started copy that saves nothing as tasks succeed (auto-download off)
// sees its task end without an error: leaving it unsaved is its choice.
func TestTeamCopyLeavingAResultUnsavedSaysNoError(t *testing.T) {
	tm := newTeam(t)
	ctx := context.Background()
	ann := tm.copy(t, "ann", func(c *studio.Config) { c.AutoDownload = false })
	if err := ann.Start(ctx); err != nil {
		t.Fatal(err)
	}
	sub, err := ann.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a kite"})
	if err != nil {
		t.Fatal(err)
	}
	ended := false
	for deadline := time.After(20 * time.Second); ; {
		tm.clk.Advance(time.Minute)
		select {
		case ev := <-ann.Events():
			if ev.Err != nil {
				t.Fatalf("an error of %s: %+v", ev.TaskID, ev)
			}
			if ev.Kind == track.EventState && ev.TaskID == sub.Task.TaskID && ev.To == api.StateSuccess {
				ended = true
			}
		case <-time.After(50 * time.Millisecond):
			if ended {
				return // and nothing after the end
			}
		case <-deadline:
			t.Fatal("the task never ended")
		}
	}
}
