package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/forms"
	"clapper/record"
)

// openForm shows the New page with an operation's form for a model, its
// first check done.
func showForm(t *testing.T, m *Model, op api.Operation, model string) *newPage {
	t.Helper()
	send(m, press("2"))
	p := m.pages[pageNew].(*newPage)
	p.form = nil
	cmd := p.openForm(op, model, nil)
	if !runUntil(m, cmd, func() bool { return p.form != nil && p.form.Check() != nil }, 5*time.Second) {
		t.Fatalf("the %s form never finished its first check", op)
	}
	return p
}

// The form of every operation, with two models where it has them: the
// fields, defaults and options follow the model.
func TestFormScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			for _, op := range api.Operations() {
				models := catalog.Models(op)
				if len(models) > 2 {
					models = models[:2]
				}
				if len(models) == 0 {
					models = []string{""}
				}
				for _, model := range models {
					name := string(op)
					if model != "" {
						name += "_" + model
					}
					t.Run(name, func(t *testing.T) {
						m, _ := newTestModel(t, size.w, size.h)
						showForm(t, m, op, model)
						snapshot(t, m)
					})
				}
			}
		})
	}
}

func ctrl(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }

// A form sent from the New page becomes a task: the Tasks page opens with
// its row selected, and history holds it.
func TestFormSubmitSelectsTheNewRow(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	send(m, press("G")) // the cursor away from the top, where the new row lands
	p := showForm(t, m, api.OpText2Video, "svcq3-pro")
	send(m, tea.PasteMsg{Content: "a red fox in fresh snow"})
	if !runUntil(m, nil, func() bool { return p.form.Check() != nil && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form never accepted the prompt:\n%s", screen(m))
	}
	send(m, ctrl('s'))
	if !strings.Contains(screen(m), `"prompt": "a red fox in fresh snow"`) {
		t.Fatalf("the review must show the exact JSON:\n%s", screen(m))
	}
	_, cmd := m.Update(press("enter"))
	tp := m.pages[pageTasks].(*tasksPage)
	done := func() bool {
		sel, ok := tp.win.selected()
		return m.active == pageTasks && ok && sel.Prompt == "a red fox in fresh snow"
	}
	if !runUntil(m, cmd, done, 10*time.Second) {
		t.Fatalf("the new task is not selected on the Tasks page:\n%s", screen(m))
	}
	sel, _ := tp.win.selected()
	got, err := s.Record().Task(context.Background(), sel.LocalID)
	if err != nil || got.TaskID == "" || got.Operation != api.OpText2Video {
		t.Fatalf("history: %+v %v", got, err)
	}
}

// A form left is kept: a restart on the same data dir shows it again.
func TestDraftSurvivesRestart(t *testing.T) {
	clk := &clock{t: testNow}
	dir := t.TempDir()
	s := newTestStudioIn(t, clk, dir)
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(m, m.Init())
	p := showForm(t, m, api.OpAudioTTS, "")
	send(m, tea.PasteMsg{Content: "Hello there"})
	runUntil(m, nil, func() bool { return p.form.Values()["text"] != nil }, time.Second)
	send(m, press("esc"))
	if p.step != stepOperation {
		t.Fatal("esc must go back to the operations")
	}
	send(m, press("enter"))
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Values()["text"] == "Hello there" }, 5*time.Second) {
		t.Fatalf("leaving the page must keep the form:\n%s", screen(m))
	}
	s.Close()

	s2 := newTestStudioIn(t, clk, dir)
	m2 := New(s2, func() time.Time { return testNow }, nil)
	send(m2, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(m2, m2.Init())
	send(m2, press("2"))
	p2 := m2.pages[pageNew].(*newPage)
	if !runUntil(m2, nil, func() bool { return p2.form != nil && p2.form.Values()["text"] == "Hello there" }, 5*time.Second) {
		t.Fatalf("a restart must restore the form:\n%s", screen(m2))
	}
	if !strings.Contains(screen(m2), "Hello there") {
		t.Fatalf("the restored text must show:\n%s", screen(m2))
	}
}

// Duplicating a task opens its form with every value of its request.
func TestDuplicateFillsTheForm(t *testing.T) {
	m, s := newTestModel(t, 140, 40)
	page, err := s.Record().Tasks(context.Background(), record.Filter{Operations: []api.Operation{api.OpText2Video}})
	if err != nil || len(page.Tasks) == 0 {
		t.Fatalf("no text2video task seeded: %v", err)
	}
	task, err := s.Record().Task(context.Background(), page.Tasks[0].LocalID)
	if err != nil {
		t.Fatal(err)
	}
	_, cmd := m.Update(duplicateMsg{task: task})
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, cmd, func() bool { return p.form != nil && p.form.Check() != nil }, 5*time.Second) {
		t.Fatal("the duplicate never opened a form")
	}
	if m.active != pageNew || p.form.Operation() != api.OpText2Video {
		t.Fatalf("page %d, form %s", m.active, p.form.Operation())
	}
	if p.form.Values()["prompt"] != task.Prompt {
		t.Fatalf("prompt %v, want %q", p.form.Values()["prompt"], task.Prompt)
	}
}

// A form opened with values (a voice for speech, say) shows them.
func TestNewFormMessagePresetsValues(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	_, cmd := m.Update(newFormMsg{op: api.OpAudioTTS, values: map[string]any{"voice_setting_voice_id": "narrator_01"}})
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, cmd, func() bool { return p.form != nil && p.form.Values()["voice_setting_voice_id"] == "narrator_01" }, 5*time.Second) {
		t.Fatalf("the voice was not filled in:\n%s", screen(m))
	}
}

// Speech answers at once: sending it shows its detail over the Tasks page.
func TestSynchronousAnswerOpensItsDetail(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	s.Config.AutoDownload = true
	if _, err := s.Submit(context.Background(), api.OpAudioClone, map[string]any{"audio_url": "https://example.com/me.mp3", "voice_id": "narrator_77"}); err != nil {
		t.Fatal(err)
	}
	p := showForm(t, m, api.OpAudioTTS, "")
	p.form.Apply(map[string]any{"text": "Hello there.", "voice_setting_voice_id": "narrator_77"})
	if !runUntil(m, p.form.Init(), func() bool { return p.form.Check() != nil && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v", p.form.Check().Broken)
	}
	send(m, ctrl('s'))
	_, cmd := m.Update(press("enter"))
	if !runUntil(m, cmd, func() bool { return m.active == pageTasks && m.detail() != nil }, 10*time.Second) {
		t.Fatalf("the answer's detail did not open:\n%s", screen(m))
	}
	if p.form.Check() == nil || p.form.Values()["text"] != "Hello there." {
		t.Fatal("the form keeps its values for the next variation")
	}
	// With auto-download on (the default), the speech is queued for saving
	// like any result.
	speech, err := s.Record().Task(context.Background(), m.detail().localID)
	if err != nil || speech.Operation != api.OpAudioTTS {
		t.Fatalf("the detail shows %+v (%v), not the speech", speech, err)
	}
	dls, err := s.Record().Downloads(context.Background(), speech.TaskID)
	if err != nil || len(dls) != 1 {
		t.Fatalf("speech result not queued for download: %v %v", dls, err)
	}
}

// While a request is being sent its form takes no key, and says so; the
// page keys go to the other pages meanwhile (the keys were swallowed, 1-6
// and esc included, for as long as the service took to answer), the help
// line lists none of the form's, and the answer still comes back.
func TestPagesOpenWhileARequestIsBeingSent(t *testing.T) {
	m, s := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq3-turbo")
	p.form.Apply(map[string]any{"prompt": "a held fox"})
	if !runUntil(m, p.form.Init(), func() bool { return p.form.Check() != nil && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v", p.form.Check().Broken)
	}
	send(m, ctrl('s'))
	// enter's answer is the form's request; the page's send is held.
	_, cmd := m.Update(press("enter"))
	var sending tea.Cmd
	var deliver func(tea.Cmd)
	deliver = func(c tea.Cmd) {
		if c == nil {
			return
		}
		msg := c()
		switch inner := unowned(msg).(type) {
		case tea.BatchMsg:
			for _, c := range inner {
				deliver(c)
			}
		case forms.SubmitMsg:
			_, sending = m.Update(msg)
		}
	}
	deliver(cmd)
	if !p.sending || sending == nil {
		t.Fatal("enter did not start the send")
	}
	lines := strings.Split(screen(m), "\n")
	if last := lines[len(lines)-1]; strings.Contains(last, "enter send") || strings.Contains(last, "esc") {
		t.Errorf("the help line lists the form's keys while it is sent: %q", last)
	}
	send(m, press("x"))
	if !strings.Contains(screen(m), "the request is being sent") {
		t.Errorf("a key on the form being sent says nothing:\n%s", screen(m))
	}
	send(m, press("1"))
	if m.active != pageTasks {
		t.Fatalf("1 did not open the Tasks page while the request was sent:\n%s", screen(m))
	}
	if !runUntil(m, sending, func() bool { return !p.sending && strings.Contains(screen(m), "a held fox") }, 10*time.Second) {
		t.Fatalf("the answer did not come back, its task listed:\n%s", screen(m))
	}
	if got, err := s.Record().Tasks(context.Background(), record.Filter{Text: "a held fox"}); err != nil || len(got.Tasks) != 1 {
		t.Fatalf("the task sent is not in history once: %v %v", got, err)
	}
}

// A send the service refuses is listed on the Tasks page at once, as
// rejected: its request and its refusal are this process's own writes,
// which no other process's change announces (the page stayed as it was,
// "No tasks yet." over a request of unknown outcome).
func TestARefusedSendIsListed(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq3-turbo")
	p.form.Apply(map[string]any{"prompt": "a refused otter", "duration": "99"})
	if !runUntil(m, p.form.Init(), func() bool {
		return p.form.Checked() && len(p.form.Check().Broken) == 1 && strings.HasPrefix(p.form.Check().Broken[0], "duration")
	}, 5*time.Second) {
		t.Fatalf("the form does not refuse the duration: %v", p.form.Check())
	}
	send(m, ctrl('s'))
	send(m, ctrl('f'))
	_, cmd := m.Update(press("y"))
	if !runUntil(m, cmd, func() bool { return !p.sending && strings.Contains(screen(m), "not created") }, 10*time.Second) {
		t.Fatalf("the sandbox did not refuse it:\n%s", screen(m))
	}
	send(m, press("esc")) // to the operations: the form keeps the keys
	send(m, press("1"))
	if !runUntil(m, nil, func() bool { return strings.Contains(lineWith(screen(m), "a refused otter"), "rejected") }, 5*time.Second) {
		t.Fatalf("the refused request is not listed:\n%s", screen(m))
	}
}
