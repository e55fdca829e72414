package ui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/scenes"
)

// The header's credits today name the daily cap when one is set (issue 32).
func TestHeaderShowsTheDailyCap(t *testing.T) {
	m, s := newTestModel(t, 140, 40)
	if got := screen(m); !regexp.MustCompile(`\d+ credits today`).MatchString(got) || regexp.MustCompile(`of \d+ credits today`).MatchString(got) {
		t.Fatalf("without a cap the header names none:\n%s", got)
	}
	s.Config.DailyCreditCap = 500
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	if got := screen(m); !regexp.MustCompile(`\d+ of 500 credits today`).MatchString(got) {
		t.Fatalf("the header does not name the daily cap:\n%s", got)
	}
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := screen(m); !regexp.MustCompile(`\d+ of 500 credits today`).MatchString(got) {
		t.Fatalf("at 80 columns the header does not name the daily cap:\n%s", got)
	}
	// The account read (a live service) shows what is left; the day's
	// spending against the cap stays beside it.
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	send(m, accountLoadedMsg{s: m.env.studio, credits: &api.Credits{Remaining: 900, HasConcurrency: true, Running: 1, Limit: 5}})
	if got := screen(m); !regexp.MustCompile(`limit 5 · \d+/500 cr today · 900 credits left`).MatchString(got) {
		t.Fatalf("with the account read the header does not name the daily cap:\n%s", got)
	}
}

// On a live service the sandbox speed does nothing: the Settings row says
// so instead of showing a speed (issue 32).
func TestSettingsSandboxSpeedWhileLive(t *testing.T) {
	t.Setenv("CLAPPER_API_KEY", "")
	m, _ := newTestModel(t, 100, 30)
	send(m, press("6"))
	if got := screen(m); !regexp.MustCompile(`Sandbox speed +1\n`).MatchString(got) {
		t.Fatalf("on the sandbox the speed shows:\n%s", got)
	}
	// A key typed on the page: the draft is live.
	send(m, press("enter"))
	send(m, tea.PasteMsg{Content: "sk-live-0123456789"})
	send(m, press("enter"))
	if got := screen(m); !strings.Contains(got, "Sandbox speed       not used: LIVE (1 on the sandbox)") {
		t.Fatalf("the speed row does not say it is unused while live:\n%s", got)
	}
}

// A task that finishes while its set's contact sheet is on screen shows
// there: no note, no bell. Another task is still announced (issue 32).
func TestNoFinishedNoteOnItsOwnSheet(t *testing.T) {
	m, s, id, _ := sheetModel(t, 140, 40, 4)
	m.notify = notifyBellOnly
	clk := &clock{t: testNow.Add(-time.Minute)}
	_ = seed(t, s, clk, []task{{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"a heron at dawn"}`, "811000000000000077", api.StateProcessing, 40, "", testNow.Add(-time.Minute), 0}})
	// The Tasks page under the sheet lists the heron, the newest, first
	// and selected: line 3 of the set is not the row in front of the user.
	send(m, press("esc"))
	send(m, historyChangedMsg{})
	send(m, press("g"))
	send(m, openSheetMsg{setID: id})
	if row, ok := m.pages[pageTasks].(*tasksPage).win.selected(); !ok || row.TaskID != "811000000000000077" {
		t.Fatalf("the heron is not the selected row: %+v", row)
	}
	n := len(timersOf(m).raw)
	// Line 3 of the set is processing.
	send(m, finish(t, m, "812000000000000003", api.StateSuccess))
	if got := rawSince(m, n); got != "" {
		t.Errorf("a version that finished on its own sheet rang: %q", got)
	}
	if got := screen(m); strings.Contains(got, "is done") {
		t.Errorf("a version that finished on its own sheet got a note:\n%s", got)
	}
	send(m, finish(t, m, "811000000000000077", api.StateSuccess))
	if got := rawSince(m, n); got != "\a" {
		t.Errorf("a task of no set finishing under the sheet wrote %q, want the bell", got)
	}
	if got := screen(m); !strings.Contains(got, "“a heron at dawn” is done") {
		t.Errorf("a task of no set finishing under the sheet got no note:\n%s", got)
	}
}

// Versions of a prompt (no seed) name their version where a seed would
// be, never "seed —" (issue 32).
func TestSheetOfPromptVersionsShowsNoEmptySeed(t *testing.T) {
	m, s := newTestModel(t, 140, 40)
	members := []record.SetMember{{Line: 1, Operation: api.OpText2Video, Label: "prompt=a fox"}, {Line: 2, Operation: api.OpText2Video, Label: "prompt=a wolf"}}
	id, _, err := s.Record().OpenSet(context.Background(), record.SetVariations, "", "text2video, 2 versions", members)
	if err != nil {
		t.Fatal(err)
	}
	send(m, openSheetMsg{setID: id})
	got := screen(m)
	if strings.Contains(got, "seed —") {
		t.Fatalf("a version without a seed shows an empty one:\n%s", got)
	}
	for _, want := range []string{"version 1", "prompt=a fox", "version 2", "prompt=a wolf"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the sheet lacks %q:\n%s", want, got)
		}
	}
}

// Variations sent from the review open their sheet over the Tasks page,
// as one send selects its row there: esc from the sheet lands in the
// list, where keys are keys, not in the form's prompt (issue 32).
func TestEscFromTheSheetAfterSendingLeavesThePrompt(t *testing.T) {
	m, s := newTestModel(t, 140, 40)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	p := showForm(t, m, api.OpText2Video, "svcq3-turbo")
	send(m, pasteMsg("a red fox"))
	if !runUntil(m, nil, func() bool { return p.form.Checked() && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v\n%s", p.form.Check().Broken, screen(m))
	}
	send(m, ctrl('s'))
	send(m, press("v"))
	send(m, pasteMsg("prompt=a fox|a wolf"))
	_, cmd := m.Update(press("enter"))
	if !runUntil(m, cmd, func() bool { return strings.Contains(screen(m), "Send 2 versions as a set?") }, 5*time.Second) {
		t.Fatalf("no confirmation of 2 versions:\n%s", screen(m))
	}
	_, cmd = m.Update(press("y"))
	if !runUntil(m, cmd, func() bool { return m.sheet() != nil }, hangGuard) {
		t.Fatalf("the set's sheet did not open:\n%s", screen(m))
	}
	send(m, press("esc"))
	if m.sheet() != nil || m.active != pageTasks || m.capturing() {
		t.Fatalf("esc from the sheet: page %d, capturing %v:\n%s", m.active, m.capturing(), screen(m))
	}
	typeText(m, "x")
	if v, _ := p.form.Values()["prompt"].(string); v != "a red fox" {
		t.Fatalf("a key after esc went into the prompt: %q", v)
	}
}

// The empty Voices page promises cloning from what the service takes: a
// web address, not a local file the clone form refuses (issue 32).
func TestEmptyVoicesPagePromisesOnlyAWebAddress(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	send(m, press("4"))
	got := screen(m)
	if strings.Contains(got, "or a local file") || !strings.Contains(got, "at a web address the service can fetch") {
		t.Fatalf("the empty Voices page:\n%s", got)
	}
}

// A multi-scene job composed again: its detail and send-onward give the
// newest cut, saved, not the first cut the task saved when it succeeded;
// before the newest is saved, send-onward says so (issue 32).
func TestMultiSceneDetailAndOnwardUseTheNewestCut(t *testing.T) {
	r := newSceneRig(t)
	ctx := t.Context()
	j := r.load(t)
	// The task's own result, saved when it succeeded: the first cut.
	first := filepath.Join(t.TempDir(), "first_cut.mp4")
	if err := os.WriteFile(first, []byte("first cut"), 0o600); err != nil {
		t.Fatal(err)
	}
	dl, err := r.s.Record().QueueDownload(ctx, r.job, 0, record.KindURL, first)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.s.Record().UpdateDownload(ctx, dl, record.DownloadProgress{Status: record.DownloadDone, Path: first, Bytes: 9, Total: 9}); err != nil {
		t.Fatal(err)
	}
	if src, err := r.s.OnwardFrom(ctx, j.LocalID, testNow); err != nil || src.Value != first {
		t.Fatalf("with one cut, onward gives %+v, %v; want the task's saved file", src, err)
	}
	ids, err := scenes.ChosenIDs(j)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.svc.Compose(ctx, r.job, ids); err != nil {
		t.Fatal(err)
	}
	r.until(t, func(j record.Job) bool { return !scenes.Running(j) })
	_, err = r.s.OnwardFrom(ctx, j.LocalID, testNow)
	if err == nil || !strings.Contains(err.Error(), "its newest cut v2 is not saved here") {
		t.Fatalf("the newest cut unsaved, onward answers %v", err)
	}
	saved, err := r.svc.AutoDownload(ctx, r.job)
	if err != nil || len(saved) != 1 {
		t.Fatalf("the new cut was not saved: %v %v", saved, err)
	}
	src, err := r.s.OnwardFrom(ctx, j.LocalID, testNow)
	if err != nil || src.Value != saved[0] || !src.FromFile {
		t.Fatalf("onward gives %+v, %v; want the newest cut %s", src, err, saved[0])
	}
	m := r.model(t, 140, 40)
	send(m, openDetailMsg{localID: j.LocalID})
	// The detail's saved file (shown, opened with o) is the newest cut's.
	if d := m.detail(); d == nil || len(d.downloads) != 1 || d.downloads[0].Path != saved[0] || strings.Contains(screen(m), "(9 B)") {
		t.Fatalf("the detail does not show the newest cut %s: %+v\n%s", saved[0], d.downloads, screen(m))
	}
}

// At 80 columns the help line leaves out the keys that do not fit, whole,
// and says so with "…" after a space: no key's words are cut ("r re-rea…",
// "d forge…" read as other words).
func TestHelpLineCutsNoWord(t *testing.T) {
	m, _ := newClockedModel(t, nil)
	check := func(where string) {
		t.Helper()
		lines := strings.Split(screen(m), "\n")
		last := lines[len(lines)-1]
		if i := strings.Index(last, "…"); i >= 0 && !strings.HasSuffix(last[:i], " ") {
			t.Errorf("%s: a key's words are cut: %q", where, last)
		}
	}
	openRow(t, m, "a cat astronaut")
	check("detail")
	send(m, press("esc"))
	send(m, press("/"))
	typeText(m, "cat")
	send(m, press("enter"))
	check("filtered Tasks")
}
