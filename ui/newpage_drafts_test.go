package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
)

// sendForm reviews and sends the form on screen and waits for the task.
func sendForm(t *testing.T, m *Model, p *newPage) {
	t.Helper()
	if !runUntil(m, nil, func() bool { return p.form.Checked() && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v\n%s", p.form.Check().Broken, screen(m))
	}
	send(m, ctrl('s'))
	_, cmd := m.Update(press("enter"))
	kept := filepath.Join(p.drafts.Dir, string(p.form.Operation())+".sent.json")
	draft := filepath.Join(p.drafts.Dir, string(p.form.Operation())+".json")
	sent := func() bool {
		_, err := os.Stat(kept)
		_, derr := os.Stat(draft)
		return m.active == pageTasks && !p.sending && err == nil && os.IsNotExist(derr)
	}
	if !runUntil(m, cmd, sent, 10*time.Second) {
		t.Fatalf("the request was not sent and kept:\n%s", screen(m))
	}
}

// A sent form is no draft: the next form of its operation starts fresh,
// with the sent values two keys away (ctrl+p, enter).
func TestSentFormStartsFreshWithLastSentOneKeyAway(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq3-pro")
	send(m, pasteMsg("a red fox in fresh snow"))
	sendForm(t, m, p)
	if p.has[api.OpText2Video] {
		t.Fatal("a sent form is still marked as a draft")
	}
	if _, err := os.Stat(filepath.Join(s.Config.DataDir, "drafts", "text2video.json")); !os.IsNotExist(err) {
		t.Fatalf("the sent form's draft file is still there: %v", err)
	}
	send(m, press("2"))
	send(m, press("esc"))
	if !runUntil(m, nil, func() bool { return p.step == stepOperation }, time.Second) {
		t.Fatal("esc did not leave the form")
	}
	if strings.Contains(screen(m), "a draft is kept") {
		t.Fatalf("the sent operation shows as a draft:\n%s", screen(m))
	}
	send(m, press("enter")) // no draft: the models come first
	send(m, press("enter"))
	if !runUntil(m, nil, func() bool { return p.form != nil && p.step == stepForm && p.form.Checked() }, 5*time.Second) {
		t.Fatal("the form did not open")
	}
	if v := p.form.Values()["prompt"]; v != nil || strings.Contains(screen(m), "a red fox") {
		t.Fatalf("the form of a sent request must start fresh, prompt %v:\n%s", v, screen(m))
	}
	if !strings.Contains(screen(m), "ctrl+p earlier prompts") {
		t.Fatalf("the fresh form must offer earlier prompts and the last sent request:\n%s", screen(m))
	}
	// ctrl+p opens the earlier prompts with the last sent request first:
	// enter fills the form with it.
	send(m, ctrl('p'))
	if !runUntil(m, nil, func() bool { return strings.Contains(screen(m), "last sent request: a red fox in fresh snow") }, 5*time.Second) {
		t.Fatalf("ctrl+p did not offer the last sent request first:\n%s", screen(m))
	}
	send(m, press("enter"))
	if !runUntil(m, nil, func() bool { return p.form.Values()["prompt"] == "a red fox in fresh snow" }, 5*time.Second) {
		t.Fatalf("ctrl+p did not fill the last sent request:\n%s", screen(m))
	}
	if !strings.Contains(screen(m), "a red fox in fresh snow") {
		t.Fatalf("the recalled prompt is not shown:\n%s", screen(m))
	}
	// Over typed text, ctrl+p asks first.
	send(m, pasteMsg(" and a hare"))
	send(m, ctrl('p'))
	send(m, press("enter"))
	if m.dialog() == nil || !strings.Contains(screen(m), "Replace this form") {
		t.Fatalf("ctrl+p over typed values must ask:\n%s", screen(m))
	}
	send(m, press("n"))
	if v := p.form.Values()["prompt"]; v != "a red fox in fresh snow and a hare" {
		t.Fatalf("no must keep what was typed, prompt %q", v)
	}
}

// Voices → c opens a fresh clone form once the last clone was sent.
func TestCloneFromVoicesStartsFresh(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpAudioClone, "")
	run(m, p.form.Apply(map[string]any{"audio_url": "https://example.com/me.mp3", "voice_id": "narrator_99"}))
	sendForm(t, m, p)
	if p.has[api.OpAudioClone] {
		t.Fatal("the sent clone is still a draft")
	}
	send(m, press("4"))
	sent := p.form
	_, cmd := m.Update(newFormMsg{op: api.OpAudioClone})
	if !runUntil(m, cmd, func() bool { return m.active == pageNew && p.form != sent && p.form.Checked() }, 5*time.Second) {
		t.Fatal("the clone form did not open")
	}
	if v := p.form.Values()["voice_id"]; v != nil {
		t.Fatalf("the clone form reopens the used voice_id %v:\n%s", v, screen(m))
	}
	if f := p.form.FocusedField(); f != "audio_url" && f != "voice_id" {
		t.Fatalf("a fresh form starts at its first field, not %q", f)
	}
}

// e on a task whose operation has an unsent draft asks: replace, keep the
// draft, or cancel; nothing typed is lost without a question.
func TestDuplicateAsksBeforeReplacingADraft(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq3-pro")
	send(m, pasteMsg("my unsent idea"))
	send(m, press("esc"))
	runUntil(m, nil, func() bool { return p.has[api.OpText2Video] }, time.Second)
	page, err := s.Record().Tasks(context.Background(), record.Filter{Operations: []api.Operation{api.OpText2Video}})
	if err != nil || len(page.Tasks) == 0 {
		t.Fatalf("no text2video task seeded: %v", err)
	}
	task, _ := s.Record().Task(context.Background(), page.Tasks[0].LocalID)
	draftKept := func() bool { return p.form != nil && p.form.Values()["prompt"] == "my unsent idea" }

	send(m, press("1"))
	send(m, duplicateMsg{task: task})
	if m.dialog() == nil || !strings.Contains(screen(m), "unsent draft") {
		t.Fatalf("the duplicate must ask first:\n%s", screen(m))
	}
	send(m, press("esc"))
	if m.active != pageTasks || !p.has[api.OpText2Video] {
		t.Fatalf("cancel must go back with the draft kept (page %d)", m.active)
	}

	send(m, duplicateMsg{task: task})
	_, cmd := m.Update(press("k"))
	if !runUntil(m, cmd, draftKept, 5*time.Second) {
		t.Fatalf("k must open the draft as it was:\n%s", screen(m))
	}

	send(m, press("esc"))
	send(m, press("1"))
	send(m, duplicateMsg{task: task})
	_, cmd = m.Update(press("r"))
	if !runUntil(m, cmd, func() bool { return p.form != nil && p.form.Values()["prompt"] == task.Prompt }, 5*time.Second) {
		t.Fatalf("r must fill the form from the task:\n%s", screen(m))
	}
}

func pasteMsg(s string) tea.PasteMsg { return tea.PasteMsg{Content: s} }

// After a restart, the operation sent last does not reopen as a form: it
// has no draft; the operations show, the sent request one key away.
func TestRestartAfterSendingShowsTheOperations(t *testing.T) {
	clk := &clock{t: testNow}
	dir := t.TempDir()
	s := newTestStudioIn(t, clk, dir)
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(m, m.Init())
	p := showForm(t, m, api.OpText2Video, "svcq3-pro")
	send(m, pasteMsg("a red fox in fresh snow"))
	sendForm(t, m, p)
	s.Close()

	m2 := New(newTestStudioIn(t, clk, dir), func() time.Time { return testNow }, nil)
	send(m2, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(m2, m2.Init())
	send(m2, press("2"))
	p2 := m2.pages[pageNew].(*newPage)
	if p2.step != stepOperation || p2.form != nil {
		t.Fatalf("the sent operation reopened as a form:\n%s", screen(m2))
	}
}
