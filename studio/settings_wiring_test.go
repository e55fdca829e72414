package studio_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/internal/pgtest"
	"clapper/record"
	"clapper/studio"
	"clapper/track"
)

// Each setting is followed from where it is given (flag, environment,
// settings file, default) through Resolve and Open to the part that uses
// it, and its effect is observed there: the sandbox's pace, the watcher's
// reads per second, files queued or not, and the folder they go to.

var wiringT0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// isolated clears every clapper variable and points the settings file at
// a fresh folder.
func isolated(t *testing.T) {
	t.Helper()
	t.Setenv(studio.EnvConfigDir, t.TempDir())
	for _, e := range []string{studio.EnvAPIKey, studio.EnvBaseURL, studio.EnvDataDir, studio.EnvSandboxSpeed, studio.EnvCallbackListen, studio.EnvCallbackURL} {
		t.Setenv(e, "")
	}
}

func resolved(t *testing.T, c studio.Config) studio.Config {
	t.Helper()
	if c.DataDir == "" {
		c.DataDir = t.TempDir()
	}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	return c
}

func openSandbox(t *testing.T, cfg studio.Config, clk *sandbox.FakeClock) *studio.Studio {
	t.Helper()
	s, err := studio.Open(context.Background(), cfg, studio.Options{Clock: clk.Now,
		Sandbox: &sandbox.Config{Clock: clk, Seed: 11}, Watcher: track.WatcherOptions{Clock: clk}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// finishedAfter reports whether an image task created now reads success
// after d of simulated time: at speed 1 generation takes its real time, at
// speed 600 a six-hundredth of it.
func finishedAfter(t *testing.T, cfg studio.Config, d time.Duration) bool {
	t.Helper()
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, cfg, clk)
	sub, err := s.Submit(context.Background(), api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(d)
	res, err := s.Service().Get(context.Background(), sub.Task.Identifier())
	if err != nil {
		t.Fatal(err)
	}
	return res.State == api.StateSuccess
}

func TestSandboxSpeedReachesTheSandbox(t *testing.T) {
	const d = 2 * time.Second // far too short at real time, ample at 600
	t.Run("default is real time", func(t *testing.T) {
		isolated(t)
		if finishedAfter(t, resolved(t, studio.Config{}), d) {
			t.Error("an image finished in 2 s at the default speed of 1")
		}
	})
	t.Run("flag", func(t *testing.T) {
		isolated(t)
		if !finishedAfter(t, resolved(t, studio.Config{SandboxSpeed: 600}), d) {
			t.Error("--sandbox-speed 600 did not speed the sandbox up")
		}
	})
	t.Run("environment", func(t *testing.T) {
		isolated(t)
		t.Setenv(studio.EnvSandboxSpeed, "600")
		if !finishedAfter(t, resolved(t, studio.Config{}), d) {
			t.Errorf("%s=600 did not speed the sandbox up", studio.EnvSandboxSpeed)
		}
	})
	t.Run("settings file", func(t *testing.T) {
		isolated(t)
		if _, err := studio.SaveSettings(studio.Settings{SandboxSpeed: 600}); err != nil {
			t.Fatal(err)
		}
		if !finishedAfter(t, resolved(t, studio.Config{}), d) {
			t.Error("a saved sandbox speed of 600 did not speed the sandbox up")
		}
	})
}

// readCounter answers every creation with a new task and every read with
// processing, counting the reads.
type readCounter struct {
	next  atomic.Int32
	reads atomic.Int32
}

func (c *readCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		fmt.Fprintf(w, `{"task_id":"t%d","state":"created","credits":1,"created_at":"2026-11-26T12:00:00Z"}`, c.next.Add(1))
		return
	}
	c.reads.Add(1)
	id := strings.Split(r.URL.Path, "/")[4]
	fmt.Fprintf(w, `{"id":%q,"state":"processing","err_code":"","credits":1,"creations":[]}`, id)
}

// readsPerSecond runs a live studio on cfg with 30 tasks in flight for a
// minute of fake time and answers the reads per second the service saw.
func readsPerSecond(t *testing.T, cfg studio.Config) float64 {
	t.Helper()
	svc := &readCounter{}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	cfg.APIKey, cfg.BaseURL = "key-0123456789", srv.URL
	clk := sandbox.NewFakeClock(wiringT0)
	// Every task wants a read each second: only the budget holds reads back.
	eager := &track.Schedule{FirstPoll: time.Second, MinInterval: time.Second, MaxInterval: time.Second,
		QueueCheckMin: time.Second, QueueCheckMax: time.Second, Slots: 100}
	s, err := studio.Open(context.Background(), cfg, studio.Options{Clock: clk.Now, Watcher: track.WatcherOptions{Clock: clk, Schedule: eager}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for range 30 {
		if _, err := s.Submit(context.Background(), api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.WatcherForTest().Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	start, end := clk.Now(), clk.Now().Add(time.Minute)
	for clk.Now().Before(end) {
		next := s.WatcherForTest().Step(context.Background())
		for {
			select {
			case <-s.WatcherForTest().Events():
				continue
			default:
			}
			break
		}
		if next.IsZero() || !next.After(clk.Now()) {
			next = clk.Now().Add(10 * time.Millisecond)
		}
		clk.Set(next)
	}
	return float64(svc.reads.Load()) / clk.Now().Sub(start).Seconds()
}

func TestRequestBudgetReachesTheWatcher(t *testing.T) {
	t.Run("default 4 reads per second", func(t *testing.T) {
		isolated(t)
		// The schedule spreads reads, so the budget is an upper bound the
		// watcher nears; a burst of 8 may come on top in the first second.
		if r := readsPerSecond(t, resolved(t, studio.Config{})); r < 2.5 || r > 4+8.0/60 {
			t.Errorf("default budget: the service saw %.2f reads/s, want near %g", r, studio.DefaultRequestBudget)
		}
	})
	t.Run("settings file", func(t *testing.T) {
		isolated(t)
		if _, err := studio.SaveSettings(studio.Settings{RequestBudget: 1}); err != nil {
			t.Fatal(err)
		}
		if r := readsPerSecond(t, resolved(t, studio.Config{})); r < 0.7 || r > 1+8.0/60 {
			t.Errorf("a saved budget of 1: the service saw %.2f reads/s", r)
		}
	})
}

// speechDownloads sends a clone and a speech on cfg (speech answers at
// once) and returns the downloads queued for the speech.
func speechDownloads(t *testing.T, cfg studio.Config) []record.Download {
	t.Helper()
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, cfg, clk)
	ctx := context.Background()
	if _, err := s.Submit(ctx, api.OpAudioClone, map[string]any{"audio_url": "https://example.com/me.mp3", "voice_id": "narrator_77"}); err != nil {
		t.Fatal(err)
	}
	sub, err := s.Submit(ctx, api.OpAudioTTS, map[string]any{"text": "Hello there.", "voice_setting_voice_id": "narrator_77"})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Task.State != api.StateSuccess {
		t.Fatalf("the speech answered %s", sub.Task.State)
	}
	dls, err := s.Record().Downloads(ctx, sub.Task.Identifier())
	if err != nil {
		t.Fatal(err)
	}
	return dls
}

func TestAutoDownloadAndFolderReachTheDownloader(t *testing.T) {
	t.Run("default: on, into the data folder", func(t *testing.T) {
		isolated(t)
		cfg := resolved(t, studio.Config{})
		dls := speechDownloads(t, cfg)
		if len(dls) != 1 {
			t.Fatalf("auto-download is on by default, but %d downloads were queued", len(dls))
		}
		if want := track.DefaultDirs(cfg.DataDir)(api.OpAudioTTS); filepath.Dir(dls[0].Path) != want {
			t.Errorf("saved into %s, want the default folder %s", filepath.Dir(dls[0].Path), want)
		}
	})
	t.Run("settings file: off", func(t *testing.T) {
		isolated(t)
		off := false
		if _, err := studio.SaveSettings(studio.Settings{AutoDownload: &off}); err != nil {
			t.Fatal(err)
		}
		if dls := speechDownloads(t, resolved(t, studio.Config{})); len(dls) != 0 {
			t.Errorf("auto-download saved off, yet %d downloads were queued", len(dls))
		}
	})
	t.Run("settings file: folder", func(t *testing.T) {
		isolated(t)
		dir := t.TempDir()
		if _, err := studio.SaveSettings(studio.Settings{DownloadDir: dir}); err != nil {
			t.Fatal(err)
		}
		dls := speechDownloads(t, resolved(t, studio.Config{}))
		if len(dls) != 1 || filepath.Dir(dls[0].Path) != dir {
			t.Errorf("a saved download folder %s: downloads %+v", dir, dls)
		}
	})
	t.Run("flag: folder", func(t *testing.T) {
		isolated(t)
		dir := t.TempDir()
		if _, err := studio.SaveSettings(studio.Settings{DownloadDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		dls := speechDownloads(t, resolved(t, studio.Config{DownloadDir: dir}))
		if len(dls) != 1 || filepath.Dir(dls[0].Path) != dir {
			t.Errorf("--download-dir %s lost to the settings file: downloads %+v", dir, dls)
		}
	})
}

// The team history's URL comes from the flag (even empty: the history
// file), else the environment, else the settings file; the studio opened on
// it writes to the team's database, as a second machine reads.
func TestHistoryURLReachesTheStore(t *testing.T) {
	isolated(t)
	t.Setenv(studio.EnvHistoryURL, "")
	if _, err := studio.SaveSettings(studio.Settings{HistoryURL: "postgres://file@db/saved"}); err != nil {
		t.Fatal(err)
	}
	if c := resolved(t, studio.Config{}); c.HistoryURL != "postgres://file@db/saved" || c.HistoryURLSource != studio.FromFile || !c.Team() {
		t.Errorf("from the file: %q %v", c.HistoryURL, c.HistoryURLSource)
	}
	t.Setenv(studio.EnvHistoryURL, "postgres://env@db/env")
	if c := resolved(t, studio.Config{}); c.HistoryURL != "postgres://env@db/env" || c.HistoryURLSource != studio.FromEnvironment {
		t.Errorf("from the environment: %q %v", c.HistoryURL, c.HistoryURLSource)
	}
	if c := resolved(t, studio.Config{HistoryURLGiven: true}); c.HistoryURL != "" || c.Team() || c.HistoryURLSource != studio.FromFlag {
		t.Errorf(`--history-url "": %q %v`, c.HistoryURL, c.HistoryURLSource)
	}
	c := studio.Config{HistoryURL: "https://db/studio", HistoryURLGiven: true, DataDir: t.TempDir()}
	if err := c.Resolve(); err == nil || !studio.IsUsage(err) || !strings.Contains(err.Error(), "not a PostgreSQL URL") {
		t.Errorf("an https URL: %v", err)
	}

	url := pgtest.Get(t).Database(t, "", nil)
	cfg := resolved(t, studio.Config{HistoryURL: url, HistoryURLGiven: true})
	if name := cfg.HistoryName(); name != "TEAM 127.0.0.1/"+url[strings.LastIndex(url, "/")+1:strings.Index(url, "?")] {
		t.Errorf("history name %q", name)
	}
	clk := sandbox.NewFakeClock(wiringT0)
	a := openSandbox(t, cfg, clk)
	if _, err := a.Submit(context.Background(), api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "shared"}); err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = t.TempDir() // another machine
	b, err := studio.OpenHistory(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	page, err := b.Tasks(context.Background(), record.Filter{})
	if err != nil || len(page.Tasks) != 1 || page.Tasks[0].Prompt != "shared" {
		t.Fatalf("the other machine reads %+v (%v)", page.Tasks, err)
	}
}
