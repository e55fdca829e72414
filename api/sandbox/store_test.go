package sandbox

import (
	"net/http"
	"os"
	"path/filepath"
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
