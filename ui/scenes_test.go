package ui

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/scenes"
	"clapper/studio"
	"clapper/track"
)

// sceneRig is a studio on a sandbox under a fake clock, with a three-scene
// job whose second scene was edited twice.
type sceneRig struct {
	s     *studio.Studio
	clock *sandbox.FakeClock
	job   string
	svc   *scenes.Service
}

func newSceneRig(t *testing.T) *sceneRig {
	t.Helper()
	dir := filepath.Join(testRoot, regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_"))
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	clk := sandbox.NewFakeClock(testNow.Add(-10 * time.Minute))
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 20, Theme: "dark", AutoDownload: true}
	fast := &track.Schedule{FirstPoll: time.Second, MinInterval: time.Second, MaxInterval: 2 * time.Second,
		QueueCheckMin: time.Second, QueueCheckMax: 2 * time.Second, Slots: 5,
		Priors: map[api.Operation]time.Duration{api.OpGeneralOneClick: 5 * time.Second}}
	s, err := studio.Open(context.Background(), cfg, studio.Options{
		Clock:   clk.Now,
		Watcher: track.WatcherOptions{Clock: clk, Schedule: fast, RequestsPerSecond: 100, Burst: 20},
		Sandbox: &sandbox.Config{StatePath: filepath.Join(dir, "sandbox.json"), Seed: 7, Clock: clk},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := &sceneRig{s: s, clock: clk, svc: s.Scenes()}
	sub, err := s.Submit(t.Context(), api.OpGeneralOneClick, map[string]any{
		"images": []any{"https://example.com/a.png"}, "prompt": "a lighthouse keeper's day", "duration": 25})
	if err != nil {
		t.Fatal(err)
	}
	r.job = sub.Task.Identifier()
	r.until(t, func(j record.Job) bool { return j.State == api.StateSuccess && !scenes.Running(j) })
	for i, prompt := range []string{"waves crash on the rocks", "the lamp turns at dusk"} {
		// Each edit at a fixed time: the watcher's jitter varies when it
		// sees the one before end.
		at := testNow.Add(time.Duration(i*3-6) * time.Minute)
		if clk.Now().After(at) {
			t.Fatalf("the job took past %s", at)
		}
		clk.Set(at)
		j := r.load(t)
		if _, err := r.svc.Edit(t.Context(), r.job, j.Scenes[1].Current().ID, prompt); err != nil {
			t.Fatal(err)
		}
		r.until(t, func(j record.Job) bool { return !scenes.Running(j) })
	}
	return r
}

func (r *sceneRig) load(t *testing.T) record.Job {
	t.Helper()
	j, err := r.s.Record().Job(t.Context(), r.job)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// until advances the fake clock and reads what is due until done.
func (r *sceneRig) until(t *testing.T, done func(record.Job) bool) {
	t.Helper()
	for i := 0; ; i++ {
		if j, err := r.s.Record().Job(t.Context(), r.job); err == nil && done(j) {
			return
		}
		if i > 1000 {
			t.Fatal("the job never got there")
		}
		r.clock.Advance(2 * time.Second)
		r.s.Poll(t.Context())
	}
}

func (r *sceneRig) model(t *testing.T, w, h int) *Model {
	t.Helper()
	m := New(r.s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: w, Height: h})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	return m
}

// settleThumb loads the selected version's picture to the end: the test
// harness gives up on a command after 300 ms, which a slow (race) run of
// the fetch may take.
func settleThumb(m *Model) {
	ed := m.pages[pageScenes].(*scenesPage).editor
	if _, v, ok := ed.selected(); ok {
		delete(ed.thumbErr, v.ID)
		delete(ed.thumbs, v.ID)
		if c := ed.loadThumb(); c != nil {
			send(m, c())
		}
	}
}

// The editor at both sizes: scene 2 selected, its second version chosen
// for the cut; then the prompt editor beside the original.
func TestSceneEditorScreens(t *testing.T) {
	r := newSceneRig(t)
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			if err := r.s.Record().ChooseVersion(t.Context(), r.job, 1, ""); err != nil {
				t.Fatal(err)
			}
			m := r.model(t, size.w, size.h)
			for _, k := range []string{"3", "enter", "down", "left", "space"} {
				send(m, press(k))
			}
			if j := r.load(t); j.Choices[1] != j.Scenes[1].Jobs[1].ID {
				t.Fatalf("space chose %v, want version 2 of scene 2", j.Choices)
			}
			send(m, historyChangedMsg{})
			settleThumb(m)
			got := screen(m)
			// The only cut was made before the edits: it is not of the ★ versions.
			for _, want := range []string{"Job " + r.job, "v2/3★", "the lamp turns at dusk", "Compositions", "cut outdated (c composes ★)"} {
				if !strings.Contains(got, want) {
					t.Errorf("editor lacks %q:\n%s", want, got)
				}
			}
			snapshot(t, m)

			t.Run("prompt", func(t *testing.T) {
				send(m, press("e"))
				if !m.pages[pageScenes].Capturing() {
					t.Fatal("the prompt editor does not capture keys")
				}
				typeText(m, " q")
				if m.quitting {
					t.Fatal("q typed in the prompt quit")
				}
				if got := screen(m); !strings.Contains(got, "prompt 26/3000") || !strings.Contains(got, "Original") {
					t.Errorf("prompt editor:\n%s", got)
				}
				// The version edited is named as the list names it, not by
				// the service's 18-digit id (issue 32).
				if got, j := screen(m), r.load(t); !strings.Contains(got, "Edit scene 2  a new version from v2") || strings.Contains(got, j.Scenes[1].Jobs[1].ID) {
					t.Errorf("the prompt editor's title does not name v2:\n%s", got)
				}
				snapshot(t, m)
				send(m, press("esc"))
				send(m, press("y")) // the text typed is dropped after a question
				if m.pages[pageScenes].Capturing() {
					t.Error("esc left the prompt open")
				}
			})
		})
	}
}

// An edit and a composition from the keyboard: the edit shows on its scene
// as it runs; the composition takes the chosen versions and is saved.
func TestSceneEditorEditAndCompose(t *testing.T) {
	r := newSceneRig(t)
	m := r.model(t, 80, 24)
	for _, k := range []string{"3", "enter", "down", "left", "space", "down", "e"} {
		send(m, press(k))
	}
	typeText(m, " at noon")
	send(m, tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	// The edit is sent once its price was shown.
	if j := r.load(t); len(j.Scenes[2].Jobs) != 1 {
		t.Fatal("the edit was sent before its price was shown")
	}
	price := r.s.ScenePrice(true, r.load(t).Scenes[2].Jobs[0].Duration)
	if got := screen(m); m.dialog() == nil || !strings.Contains(got, "It makes scene 3 v2 from v1.") || !strings.Contains(got, "cost: "+price.Text) || price.Credits <= 0 {
		t.Fatalf("no confirmation with the edit's price (%s):\n%s", price.Text, got)
	}
	before, err := r.s.Record().Task(t.Context(), r.load(t).LocalID)
	if err != nil {
		t.Fatal(err)
	}
	send(m, press("y"))
	if got := screen(m); !strings.Contains(got, "scene edit sent: scene 3 v2 is being made") {
		t.Errorf("the edit's message names no version:\n%s", got)
	}
	// The edit's price is counted on the job's task.
	if after, _ := r.s.Record().Task(t.Context(), r.load(t).LocalID); after.Credits != before.Credits+price.Credits {
		t.Errorf("the job's credits went from %d to %d after an edit of %d", before.Credits, after.Credits, price.Credits)
	}
	j := r.load(t)
	if n := len(j.Scenes[2].Jobs); n != 2 || !strings.HasSuffix(j.Scenes[2].Current().Prompt, "at noon") {
		t.Fatalf("scene 3 after the edit: %+v", j.Scenes[2])
	}
	send(m, historyChangedMsg{})
	if got := screen(m); !strings.Contains(got, "(v2 created)") {
		t.Errorf("the running edit does not show on its scene:\n%s", got)
	}
	// A new version waits at the clock's start, not at ◷, the hand of a
	// task held for off-peak hours (issue 32).
	if got := screen(m); !strings.Contains(got, "◴ created") || strings.Contains(got, "◷") {
		t.Errorf("the new version does not show ◴, or shows the off-peak ◷:\n%s", got)
	}
	r.until(t, func(j record.Job) bool { return !scenes.Running(j) })
	send(m, historyChangedMsg{})
	send(m, press("c"))
	if got := screen(m); m.dialog() == nil || !strings.Contains(got, "scene 2: v2 (your choice)") || !strings.Contains(got, "scene 3: v2") ||
		!strings.Contains(got, "cost: 0 credits (sandbox price table)") || strings.Contains(got, j.Scenes[1].Jobs[1].ID) {
		t.Fatalf("no confirmation listing the chosen versions by name, with the price:\n%s", got)
	}
	send(m, press("y"))
	if got := screen(m); !strings.Contains(got, "the cut of v1, v2, v2 is being made") {
		t.Errorf("the composition's message names no versions:\n%s", got)
	}
	j = r.load(t)
	cut := j.Compose[len(j.Compose)-1].Current()
	want := []string{j.Scenes[0].Jobs[0].ID, j.Scenes[1].Jobs[1].ID, j.Scenes[2].Jobs[1].ID}
	if got := scenes.ComposedInput(cut); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("composed %v, want %v", got, want)
	}
	r.until(t, func(j record.Job) bool { return !scenes.Running(j) })
	// The watcher's event reaches the page, which saves the new cut.
	send(m, studioEventMsg{ev: track.Event{Kind: track.EventJobUpdated, TaskID: r.job, Operation: api.OpGeneralOneClick}})
	_, v, _ := scenes.Find(r.load(t), cut.ID)
	if v.Download == nil || v.Download.Status != record.DownloadDone {
		t.Fatalf("the composition was not saved: %+v", v.Download)
	}
	// Saved by scene and version, and the cut of the ★ versions is current.
	if base := filepath.Base(v.Download.Path); !strings.Contains(base, "_"+r.job+"_cut_v") {
		t.Errorf("the cut is saved as %s", base)
	}
	send(m, historyChangedMsg{})
	if got := screen(m); !strings.Contains(got, "cut saved") || strings.Contains(got, "outdated") {
		t.Errorf("the header does not say the current cut is saved:\n%s", got)
	}
}

// An edit that would pass the daily credit cap says so in its confirmation,
// beside the day's spending, and is sent only on yes; under the cap the
// confirmation shows the spending alone.
func TestSceneEditPastTheCapAsksFirst(t *testing.T) {
	r := newSceneRig(t)
	m := r.model(t, 80, 24)
	for _, k := range []string{"3", "enter", "down", "down", "e"} {
		send(m, press(k))
	}
	typeText(m, " at noon")
	ctrlS := tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
	send(m, ctrlS)
	if got := screen(m); !strings.Contains(got, "spent: ") || strings.Contains(got, "Send it anyway?") {
		t.Fatalf("under no cap the confirmation shows the spending alone:\n%s", got)
	}
	send(m, press("n"))
	r.s.Config.DailyCreditCap = 1
	send(m, press("e"))
	typeText(m, " at dusk")
	send(m, ctrlS)
	got := screen(m)
	if !strings.Contains(got, "daily credit cap is 1 credit") || !strings.Contains(got, "this scene edit costs 32") ||
		!strings.Contains(got, "Send it anyway?") {
		t.Fatalf("an edit past the cap does not say so:\n%s", got)
	}
	if j := r.load(t); len(j.Scenes[2].Jobs) != 1 {
		t.Fatal("the edit past the cap was sent before yes")
	}
	send(m, press("y"))
	if j := r.load(t); len(j.Scenes[2].Jobs) != 2 {
		t.Fatalf("yes did not send the edit past the cap: %+v", j.Scenes[2])
	} // While v2 is being made, e offers no second edit of the scene.
	send(m, historyChangedMsg{})
	send(m, press("e"))
	if m.pages[pageScenes].Capturing() {
		t.Fatalf("e opened a prompt for a scene still being made:\n%s", screen(m))
	}
}

// The editor's help offers the arrows only where they move: ←/→ on a scene
// with more than one version, ↑/↓ with more than one scene.
func TestSceneEditorHelpOffersOnlyArrowsThatMove(t *testing.T) {
	r := newSceneRig(t)
	m := r.model(t, 140, 40)
	send(m, press("3"))
	send(m, press("enter"))
	j := r.load(t)
	if len(j.Scenes) < 2 || len(j.Scenes[0].Jobs) != 1 || len(j.Scenes[1].Jobs) < 2 {
		t.Fatalf("the rig's job: %d scenes, %d and %d versions", len(j.Scenes), len(j.Scenes[0].Jobs), len(j.Scenes[1].Jobs))
	}
	help := m.fullHelp()
	if strings.Contains(help, "older version") || strings.Contains(help, "newer version") || !strings.Contains(help, "next scene") {
		t.Errorf("on a scene of one version:\n%s", help)
	}
	send(m, press("down"))
	if help := m.fullHelp(); !strings.Contains(help, "older version") || !strings.Contains(help, "newer version") {
		t.Errorf("on a scene of %d versions:\n%s", len(j.Scenes[1].Jobs), help)
	}
}
