package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/track"
	"clapper/ui/preview"
)

// countedModel is newTestModel on a history whose statements are counted.
func countedModel(t *testing.T) *Model {
	t.Helper()
	useCountingDriver = true
	t.Cleanup(func() { useCountingDriver = false })
	m, _ := newTestModel(t, 120, 30)
	return m
}

// finish records a task's new state as the watcher does, and returns its
// event, not yet delivered.
func finish(t *testing.T, m *Model, taskID, to string) studioEventMsg {
	t.Helper()
	if _, err := m.env.store().ApplyResult(context.Background(), taskID, record.Update{State: to, Credits: 120}); err != nil {
		t.Fatal(err)
	}
	return studioEventMsg{track.Event{Kind: track.EventState, TaskID: taskID, Operation: api.OpText2Video, From: api.StateProcessing, To: to}}
}

// A state change is read as its one row at the next frame and drawn in
// place, and the header recounts then; nothing re-reads the page.
func TestStateEventUpdatesItsRowInPlace(t *testing.T) {
	m := countedModel(t)
	if !strings.Contains(screen(m), "1 running") {
		t.Fatalf("start:\n%s", screen(m))
	}
	ev := finish(t, m, "811000000000000006", api.StateSuccess)
	before := statements.Load()
	_, cmd := m.Update(ev)
	run(m, cmd)
	if got := statements.Load() - before; got != 0 {
		t.Errorf("the event read %d statements before the frame, want none", got)
	}
	if !strings.Contains(screen(m), "1 running") {
		t.Errorf("the header recounted before the frame")
	}
	flushFrame(m)
	if got := statements.Load() - before; got != 3 {
		t.Errorf("the event cost %d statements in all, want 3 (its row, then the header's counts and credits)", got)
	}
	row := lineWith(screen(m), "whale breaching")
	if !strings.Contains(row, "success") {
		t.Errorf("the row was not updated in place: %q", row)
	}
	if !strings.Contains(screen(m), "0 running") {
		t.Errorf("the header did not recount at the frame:\n%s", screen(m))
	}
}

// Events arriving within one frame cost one read of their rows and one of
// the header, whatever their number; a status line reads nothing.
func TestEventsOfOneFrameAreReadOnce(t *testing.T) {
	m := countedModel(t)
	events := []studioEventMsg{
		finish(t, m, "811000000000000006", api.StateSuccess),
		finish(t, m, "811000000000000005", api.StateFailed),
	}
	before := statements.Load()
	for _, ev := range events {
		_, cmd := m.Update(ev)
		run(m, cmd)
	}
	flushFrame(m)
	if got := statements.Load() - before; got != 3 {
		t.Errorf("two events in a frame cost %d statements, want 3 (both rows in one, the header's two)", got)
	}
	for _, want := range []string{"whale breaching", "success", "failed"} {
		if !strings.Contains(screen(m), want) {
			t.Errorf("%q is not on screen after the frame:\n%s", want, screen(m))
		}
	}
	before = statements.Load()
	send(m, statusMsg{text: "copied"})
	if got := statements.Load() - before; got != 0 {
		t.Errorf("a status line read %d statements", got)
	}
}

// A hidden page does not read on an event; it reads once when shown. A
// list filtered by state re-reads, since the task may have left it.
func TestHiddenPagesReadWhenShown(t *testing.T) {
	m := countedModel(t)
	send(m, press("5")) // History, loaded
	send(m, press("1"))
	ev := finish(t, m, "811000000000000006", api.StateSuccess)
	before := statements.Load()
	send(m, ev)
	afterEvent := statements.Load() - before
	if afterEvent != 3 {
		t.Errorf("with History hidden the event cost %d statements, want 3", afterEvent)
	}
	send(m, press("5"))
	if statements.Load()-before == afterEvent {
		t.Error("History, marked stale, did not read when shown")
	}
	before = statements.Load()
	send(m, press("1"))
	send(m, press("5"))
	if got := statements.Load() - before; got != 0 {
		t.Errorf("showing pages that did not change read %d statements", got)
	}

	send(m, press("1"))
	send(m, press("s")) // in flight only
	tp := m.pages[pageTasks].(*tasksPage)
	if !strings.Contains(screen(m), "neon city") {
		t.Fatalf("the queued task is not listed in flight:\n%s", screen(m))
	}
	send(m, finish(t, m, "811000000000000005", api.StateFailed))
	// The status line announces the failure; the list must not hold it.
	lines := strings.Split(screen(m), "\n")
	list := strings.Join(lines[:len(lines)-2], "\n")
	if strings.Contains(list, "neon city") || tp.win.total != 1 {
		t.Errorf("a task that left the filter is still listed (total %d):\n%s", tp.win.total, screen(m))
	}
}

// Requests in flight are counted by the root through messages: quitting
// asks while one is unanswered, and its answer ends the count.
func TestSubmissionsAreCountedByTheRoot(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	answered := false
	_, cmd := m.Update(submitStartedMsg{send: func() tea.Msg { answered = true; return nil }})
	if m.submitting != 1 {
		t.Fatalf("a request sent counts %d", m.submitting)
	}
	run(m, cmd)
	if !answered || m.submitting != 0 {
		t.Fatalf("after the answer: sent %v, counting %d", answered, m.submitting)
	}
}

func lineWith(s, part string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, part) {
			return l
		}
	}
	return ""
}

// spyPage records the messages a page is handed.
type spyPage struct {
	page
	got []string
}

func (s *spyPage) Update(msg tea.Msg) tea.Cmd {
	s.got = append(s.got, fmt.Sprintf("%T", msg))
	return s.page.Update(msg)
}

// A data message goes to the page it is for, not to every page.
func TestDataMessagesReachTheirPageOnly(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	spies := make([]*spyPage, len(m.pages))
	for i, p := range m.pages {
		spies[i] = &spyPage{page: p}
		m.pages[i] = spies[i]
	}
	for _, c := range []struct {
		msg  tea.Msg
		page int
	}{
		{voicesLoadedMsg{}, pageVoices},
		{jobsLoadedMsg{}, pageScenes},
		{historyTotalsMsg{}, pageHistory},
		{unknownLoadedMsg{}, pageTasks},
		{voicesForFormMsg{}, pageNew},
	} {
		for _, s := range spies {
			s.got = nil
		}
		m.Update(c.msg)
		for i, s := range spies {
			if want := i == c.page; (len(s.got) == 1) != want {
				t.Errorf("%T: page %d was handed %v", c.msg, i, s.got)
			}
		}
	}
}

// A download's progress re-reads only the detail that shows it; a failed
// read re-reads nothing.
func TestDownloadEventsReadOnlyTheDetailShowingThem(t *testing.T) {
	m := countedModel(t)
	progress := studioEventMsg{track.Event{Kind: track.EventDownload, TaskID: "811000000000000002", Operation: api.OpReference2Image}}
	before := statements.Load()
	send(m, progress)
	send(m, studioEventMsg{track.Event{Kind: track.EventPollFailed, TaskID: "811000000000000006"}})
	if got := statements.Load() - before; got != 0 {
		t.Errorf("with no detail open, a download's progress and a failed read cost %d statements", got)
	}
	tp := m.pages[pageTasks].(*tasksPage)
	for i, r := range tp.win.rows {
		if r.TaskID == "811000000000000002" {
			tp.win.cursor = i
		}
	}
	send(m, press("enter"))
	if m.detail() == nil {
		t.Fatal("no detail")
	}
	before = statements.Load()
	send(m, progress)
	if statements.Load() == before {
		t.Error("the detail showing the task did not re-read its download")
	}
}

// Kitty image ids come from the root, one per transmitted preview, and the
// picture is encoded in a command, not in Update.
func TestKittyImagesAreNumberedByTheRootAndEncodedInACommand(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	m.env.kitty = &preview.Kitty{}
	cells := preview.FromImage(image.NewRGBA(image.Rect(0, 0, 8, 8)), 4, 2)
	for want := 1; want <= 2; want++ {
		send(m, press("esc"))
		send(m, press("enter"))
		d := m.detail()
		_, cmd := m.Update(previewLoadedMsg{localID: d.localID, cells: cells})
		if d.imageID != 0 {
			t.Fatal("the detail numbered its own image")
		}
		wanted := unowned(cmd())
		if _, ok := wanted.(imageWantedMsg); !ok {
			t.Fatalf("the detail asked for %T, want an image id", wanted)
		}
		_, encode := m.Update(wanted)
		if d.imageID != want || m.nextImageID != want {
			t.Fatalf("image id %d (root's count %d), want %d", d.imageID, m.nextImageID, want)
		}
		raw, ok := encode().(tea.RawMsg)
		if !ok || !strings.Contains(fmt.Sprint(raw.Msg), "\x1b_G") {
			t.Fatalf("the command did not carry the encoded image: %T", raw)
		}
	}
}

// On the History page a state change redraws its row in place too; only
// the counts and charts beside the list are read again.
func TestHistoryTakesAStateChangeInPlace(t *testing.T) {
	m := countedModel(t)
	send(m, press("5"))
	ev := finish(t, m, "811000000000000006", api.StateSuccess)
	before := statements.Load()
	send(m, ev)
	if !strings.Contains(lineWith(screen(m), "a whale breach"), "success") {
		t.Errorf("the row was not updated in place:\n%s", screen(m))
	}
	// A re-read of the list would add its count and its page of rows.
	if got := statements.Load() - before; got != 6 {
		t.Errorf("the event cost %d statements, want 6 (the row, the header's two, the page's counts and two charts)", got)
	}
}

// ctrl+d on the New page's list discards a draft after asking; its file is
// removed in a command, not in Update.
func TestDiscardingADraftRemovesItsFileInACommand(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	p := m.pages[pageNew].(*newPage)
	op := api.Operations()[0]
	path := filepath.Join(p.drafts.Dir, string(op)+".json")
	if err := os.MkdirAll(p.drafts.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	run(m, p.Init())
	send(m, press("2"))
	p.selectOp(op)
	p.step = stepOperation
	send(m, tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	if m.dialog() == nil {
		t.Fatalf("ctrl+d did not ask:\n%s", screen(m))
	}
	_, cmd := m.Update(press("y"))
	discard, ok := find[discardDraftMsg](cmd)
	if !ok {
		t.Fatal("yes did not ask to discard")
	}
	_, cmd = m.Update(discard)
	if _, err := os.Stat(path); err != nil {
		t.Fatal("the file was removed inside Update")
	}
	run(m, cmd)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) || p.has[op] {
		t.Fatalf("the draft is still there (%v, listed %v)", err, p.has[op])
	}
	if !strings.Contains(screen(m), "discarded") {
		t.Errorf("no word of it:\n%s", screen(m))
	}
}

// find runs cmd (and the commands of a batch) for the first message of
// type T.
func find[T tea.Msg](cmd tea.Cmd) (T, bool) {
	var zero T
	if cmd == nil {
		return zero, false
	}
	switch msg := unowned(cmd()).(type) {
	case T:
		return msg, true
	case tea.BatchMsg:
		for _, c := range msg {
			if m, ok := find[T](c); ok {
				return m, true
			}
		}
	}
	return zero, false
}
