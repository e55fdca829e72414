package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"image/color"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/studio"
	"clapper/track"
)

// Issue 19.5: saving the Settings page writes only what was typed on it. A
// key and a service address that came from --api-key, CLAPPER_API_KEY or
// --base-url run this session and are never written to settings.json.
func TestSettingsSaveKeepsFlagAndEnvironmentValuesOut(t *testing.T) {
	for _, from := range []studio.Source{studio.FromFlag, studio.FromEnvironment} {
		m, s := newTestModel(t, 100, 30)
		path, err := studio.SettingsPath()
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(path)
		t.Cleanup(func() { os.Remove(path) })
		if from == studio.FromEnvironment {
			t.Setenv(studio.EnvAPIKey, "env-key-0123456789")
		}
		s.Config.APIKey, s.Config.BaseURL = "flag-key-0123456789", "http://127.0.0.1:9"
		s.Config.APIKeySource, s.Config.BaseURLSource = from, from
		wasOn := s.Config.AutoDownload
		p := m.pages[pageSettings].(*settingsPage)
		p.reopen()
		p.cursor = 3 // auto-download
		p.Update(press("space"))
		cmd := p.Update(press("s"))
		if cmd == nil {
			t.Fatalf("%v: s saved nothing: %s", from, p.problem)
		}
		if msg, ok := cmd().(settingsSavedMsg); !ok || msg.cfg.APIKey == "" {
			t.Fatalf("%v: save answered %#v; the session must keep running on the key it was given", from, msg)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var saved map[string]any
		json.Unmarshal(b, &saved)
		if _, ok := saved["api_key"]; ok || strings.Contains(string(b), "key-0123456789") {
			t.Errorf("%v: the key went into settings.json:\n%s", from, b)
		}
		if _, ok := saved["base_url"]; ok {
			t.Errorf("%v: the service address went into settings.json:\n%s", from, b)
		}
		if saved["auto_download"] != !wasOn {
			t.Errorf("%v: the typed change was not saved:\n%s", from, b)
		}
	}
}

// What is typed on the page is saved, the key too.
func TestSettingsSaveWritesATypedKey(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	path, _ := studio.SettingsPath()
	os.Remove(path)
	t.Cleanup(func() { os.Remove(path) })
	p := m.pages[pageSettings].(*settingsPage)
	p.reopen()
	for _, k := range []string{"enter"} {
		p.Update(press(k))
	}
	p.input.SetValue("typed-key-0123456789")
	p.Update(press("enter"))
	p.cursor = 1
	p.Update(press("enter"))
	// The key is read once before it is saved: first at an address that
	// does not answer, then at a service that takes it.
	p.input.SetValue("http://127.0.0.1:9")
	p.Update(press("enter"))
	cmd := p.Update(press("s"))
	if cmd == nil {
		t.Fatalf("nothing saved: %s", p.problem)
	}
	msg, ok := cmd().(settingsRefusedMsg)
	if !ok || !strings.Contains(msg.text, "settings not saved: could not reach http://127.0.0.1:9") {
		t.Errorf("an address that does not answer: %#v", msg)
	}
	p.Update(msg)
	if _, err := os.Stat(path); err == nil {
		t.Error("settings were saved although the key could not be checked")
	}
	srv, err := sandbox.New(sandbox.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	p.cursor = 1
	p.Update(press("enter"))
	p.input.SetValue(ts.URL)
	p.Update(press("enter"))
	p.Update(press("s"))()
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "typed-key-0123456789") || !strings.Contains(string(b), ts.URL) {
		t.Errorf("typed key and address not saved:\n%s", b)
	}
}

// Issue 19.4: when the service asks to wait, the status line says so and
// when reads resume.
func TestPauseIsShown(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, studioEventMsg{track.Event{Kind: track.EventPaused, TaskID: "t1", At: testNow, Until: testNow.Add(2 * time.Minute)}})
	if got := screen(m); !strings.Contains(got, "the service asked to wait; retrying in 2m0s") {
		t.Errorf("no word of the pause:\n%s", got)
	}
}

// Issue 19.1: r on the Tasks page re-reads the task under the cursor; a
// task given up as lost, which the service knows after all, is followed
// again.
func TestRereadFollowsALostTaskAgain(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	ctx := context.Background()
	sub, err := s.Submit(ctx, api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "a lost fox"})
	if err != nil {
		t.Fatal(err)
	}
	id := sub.Task.Identifier()
	for i := 2; i >= 0; i-- {
		if _, err := s.Record().RecordNotFound(ctx, id, testNow.Add(-time.Duration(i)*track.LostWindow), api.ReasonTaskNotFound, 3, track.LostWindow); err != nil {
			t.Fatal(err)
		}
	}
	if lost, _ := s.Record().LostTasks(ctx); len(lost) != 1 {
		t.Fatalf("lost %+v", lost)
	}
	m := New(s, func() time.Time { return testNow }, nil)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Send(tea.BackgroundColorMsg{Color: color.Black})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("a lost fox"))
	}, teatest.WithDuration(hangGuard))
	tm.Send(press("r"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("re-read from the service"))
	}, teatest.WithDuration(hangGuard))
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	if lost, _ := s.Record().LostTasks(ctx); len(lost) != 0 {
		t.Errorf("still lost after r: %+v", lost)
	}
	if s.Watching() != 1 {
		t.Errorf("the task is not followed again (%d followed)", s.Watching())
	}
}

// Issue 19.7: the TUI says what resolving the configuration warned about
// (a key-holding settings file made private), which the screen would hide.
func TestConfigWarningIsShown(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	s.Config.Warnings = []string{"settings file /x/settings.json holds the API key and others could read it (mode 0644); it is now 0600"}
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 30})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	if got := screen(m); !strings.Contains(got, "it is now 0600") {
		t.Errorf("no word of the warning:\n%s", got)
	}
}

// Issue 19.2: a request sent five minutes ago that its sender (alive, and
// beating) still waits on is not of unknown outcome; once the beats stop
// for IntentStale it is pinned as such.
func TestRequestStillBeingSentIsNotPinned(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	ids := seed(t, s, clk, []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"a slow fox"}`, "", "", 0, "", testNow.Add(-5 * time.Minute), 0},
	})
	clk.t = testNow
	if err := s.Record().BeatIntent(context.Background(), ids[0], track.Sender()); err != nil {
		t.Fatal(err)
	}
	m := New(s, clk.now, nil)
	send(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	if got := screen(m); strings.Contains(got, "unknown outcome") {
		t.Fatalf("a request still being sent is pinned as of unknown outcome:\n%s", got)
	}
	advance(m, clk, track.IntentStale+time.Second)
	if got := screen(m); !strings.Contains(got, "1 request of unknown outcome") {
		t.Errorf("a request whose sender stopped is not pinned:\n%s", got)
	}
}
