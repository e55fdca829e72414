package sandbox

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
)

func TestTwoServersShareOneStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "sandbox.json")
	clock := NewFakeClock(t0)
	a := newHarness(t, Config{Clock: clock, StatePath: path})
	b := newHarness(t, Config{Clock: clock, StatePath: path})

	id := a.createID(api.OpText2Video, samples[api.OpText2Video])
	if r := b.get(id); r.State != api.StateCreated {
		t.Fatalf("the other server reads %s", r.State)
	}
	// A task made by the other server does not reuse the first one's id.
	id2 := b.createID(api.OpText2Video, samples[api.OpText2Video])
	if id2 == id {
		t.Fatal("two servers on one file made the same id")
	}
	clock.Advance(time.Hour)
	if r := a.get(id2); r.State != api.StateSuccess {
		t.Errorf("task of B read by A an hour later is %s", r.State)
	}
	// Voices are shared too.
	a.create(api.OpAudioClone, clone("shared_voice", ""))
	status, _, _ := b.call(http.MethodPost, api.OpAudioClone.Path(), clone("shared_voice", ""), nil)
	if status != http.StatusConflict {
		t.Errorf("cloning an id the other server cloned: HTTP %d", status)
	}
	// Result URLs signed by one server are honoured by the other.
	url := a.get(id).Creations[0].URL
	if code, _ := b.fetch(strings.Replace(url, a.ts.URL, b.ts.URL, 1)); code != http.StatusOK {
		t.Errorf("URL signed by A fetched from B: HTTP %d", code)
	}
	// A callback is sent once, whichever server gets to it.
	rc := newReceiver(t, clock, http.StatusOK)
	cb := a.createID(api.OpReference2Image, sample(api.OpReference2Image, map[string]any{"callback_url": rc.srv.URL}))
	for range 120 {
		clock.Advance(time.Second)
		a.srv.Advance()
		b.srv.Advance()
	}
	if got := rc.states(); len(got) != 2 || b.get(cb).State != api.StateSuccess {
		t.Errorf("callbacks through two servers: %v", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state file: %v, mode %v", err, fi.Mode())
	}
}

func TestStateOutlivesTheProcessAndKeepsProgressing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	clock := NewFakeClock(t0)
	rc := newReceiver(t, clock, http.StatusOK)
	a := newHarness(t, Config{Clock: clock, StatePath: path})
	id := a.createID(api.OpReference2Image, sample(api.OpReference2Image, map[string]any{"callback_url": rc.srv.URL}))
	if err := a.srv.Close(); err != nil {
		t.Fatal(err)
	}
	// Nothing ran while no process was up; the next one catches up.
	clock.Advance(time.Hour)
	next := newHarness(t, Config{Clock: clock, StatePath: path})
	if r := next.get(id); r.State != api.StateSuccess || len(r.Creations) != 1 {
		t.Errorf("after a restart the task is %+v", r)
	}
	next.advance(0)
	if got := rc.states(); len(got) != 2 {
		t.Errorf("callbacks due while down: %v, want processing and success", got)
	}
}

func TestDamagedStateFileIsSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sandbox.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logged []string
	h := newHarness(t, Config{StatePath: path, Logf: func(f string, a ...any) {
		mu.Lock()
		logged = append(logged, f)
		mu.Unlock()
	}})
	h.createID(api.OpText2Video, samples[api.OpText2Video])
	matches, _ := filepath.Glob(path + ".corrupt-*")
	mu.Lock()
	defer mu.Unlock()
	if len(matches) != 1 || len(logged) == 0 {
		t.Errorf("damaged file moved to %v, logged %v", matches, logged)
	}
}

// The journal: each save appends the units that changed; when the journal
// outgrows the snapshot a new snapshot takes it in; another process reads
// the result whole, and so does the next run.
func TestJournalCompactsAndIsReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	clock := NewFakeClock(t0)
	a := newHarness(t, Config{Clock: clock, StatePath: path})
	b := newHarness(t, Config{Clock: clock, StatePath: path})
	a.srv.store.minCompact = 4 << 10
	var ids []string
	snapshots := map[fileStamp]bool{}
	for i := range 40 {
		h := []*harness{a, b}[i%3/2] // two of three by a
		ids = append(ids, h.createID(api.OpText2Video, samples[api.OpText2Video]))
		clock.Advance(time.Second)
		snapshots[a.srv.store.seen] = true
		// The journal stays within the snapshot's size (or 4 KiB), give or
		// take the records of one save by each server.
		snap, _ := os.Stat(path)
		if fi, err := os.Stat(path + ".journal"); err == nil && fi.Size() > max(snap.Size(), 4<<10)+4<<10 {
			t.Fatalf("journal of %d bytes beside a snapshot of %d after %d creations", fi.Size(), snap.Size(), i+1)
		}
	}
	if len(snapshots) < 3 {
		t.Errorf("%d snapshots written in 40 creations with a 4 KiB journal", len(snapshots))
	}
	clock.Advance(time.Hour)
	next := newHarness(t, Config{Clock: clock, StatePath: path})
	for _, id := range ids {
		if r := next.get(id); r.State != api.StateSuccess {
			t.Errorf("task %s reads %s in the next run", id, r.State)
		}
	}
}

// A save cut short leaves half a line: it is not part of the state, and
// the next save does not glue its record to it. A crash after a snapshot
// but before the journal was emptied replays nothing twice: the records
// the snapshot holds are skipped, so no task goes back in time.
func TestJournalSurvivesCrashes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	clock := NewFakeClock(t0)
	a := newHarness(t, Config{Clock: clock, StatePath: path})
	id := a.createID(api.OpText2Video, samples[api.OpText2Video])
	old, err := os.ReadFile(path + ".journal")
	if err != nil || len(old) == 0 {
		t.Fatalf("no journal after a creation: %v", err)
	}
	a.createID(api.OpText2Video, samples[api.OpText2Video])
	clock.Advance(time.Hour)
	if r := a.get(id); r.State != api.StateSuccess {
		t.Fatalf("task %s after an hour", r.State)
	}
	if err := a.srv.withState(func(st *state, _ time.Time) error { return a.srv.store.snapshot(st) }); err != nil {
		t.Fatal(err)
	}
	a.srv.Close()
	// The journal as it was before the snapshot, and a torn record after it.
	if err := os.WriteFile(path+".journal", append(old, `{"n":99,"units":[{"id":"x`...), 0o600); err != nil {
		t.Fatal(err)
	}
	b := newHarness(t, Config{Clock: clock, StatePath: path})
	if r := b.get(id); r.State != api.StateSuccess {
		t.Errorf("after the crash the task reads %s", r.State)
	}
	var seq int64
	b.srv.withState(func(st *state, _ time.Time) error { seq = st.Seq; return nil })
	if seq != 2 {
		t.Errorf("after the crash the sandbox has numbered %d creations, not 2", seq)
	}
	id2 := b.createID(api.OpText2Video, samples[api.OpText2Video])
	c := newHarness(t, Config{Clock: clock, StatePath: path})
	if r := c.get(id2); r.State != api.StateCreated {
		t.Errorf("a task saved after the torn record reads %s", r.State)
	}
}

// A state file from before units recorded their result's length (no
// "seconds") still gives its videos' lengths, from the duration asked for:
// a 6 s video of such a file extended by 7 s makes 13 s, not a refusal of
// a video of 0 s.
func TestStateFileWithoutResultLengthsKeepsItsVideosLengths(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	clock := NewFakeClock(t0)
	a := newHarness(t, Config{Clock: clock, StatePath: path})
	src := a.finished(api.OpText2Video, map[string]any{"model": "svcq3-turbo", "prompt": "a tower", "duration": 6})
	if err := a.srv.withState(func(st *state, _ time.Time) error { return a.srv.store.snapshot(st) }); err != nil {
		t.Fatal(err)
	}
	a.srv.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	older := regexp.MustCompile(`"seconds":[0-9.]+,`)
	if n := len(older.FindAll(b, -1)); n != 1 {
		t.Fatalf(`the snapshot holds %d "seconds", want the source's one`, n)
	}
	if err := os.WriteFile(path, older.ReplaceAll(b, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	next := newHarness(t, Config{Clock: clock, StatePath: path})
	ext := next.createID(api.OpExtend, map[string]any{"model": "svcq2-pro", "video_creation_id": src.Creations[0].ID, "duration": 7})
	if got := next.seconds(ext); got != 13 {
		t.Errorf("the older file's 6 s video extended by 7 s: %v s, want 13", got)
	}
}
