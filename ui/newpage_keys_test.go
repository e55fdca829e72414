package ui

import (
	"bytes"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/assets"
)

// fakeEditor sets $EDITOR to a script that writes text into the file it
// is given, as a user would in vi, and returns where it logs its runs.
func fakeEditor(t *testing.T, text string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "editor")
	body := "#!/bin/sh\nprintf '\\n%s\\n' '" + text + "' >> \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	// Run by sh, not exec'd: a script just written can fail to exec with
	// "text file busy" while another test's fork still holds its fd.
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "/bin/sh "+script)
}

// In a running program, a New form's prompt takes ctrl+j as a new line and
// ctrl+e hands the text to $EDITOR, taking back what it wrote.
func TestFormPromptNewLineAndEditorInARunningProgram(t *testing.T) {
	fakeEditor(t, "from the editor")
	// The program starts the root itself, as clapper does: Init runs once.
	clk := &clock{t: testNow}
	m := New(newTestStudio(t, clk), func() time.Time { return testNow }, nil)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Send(tea.BackgroundColorMsg{Color: color.Black})
	// New, text2video, its first model: the form opens on the prompt.
	for _, k := range []string{"2", "down", "down", "enter", "enter"} {
		tm.Send(press(k))
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("ctrl+j new line"))
	}, teatest.WithDuration(hangGuard))
	tm.Type("first line")
	tm.Send(ctrl('j'))
	tm.Type("second line")
	tm.Send(ctrl('e'))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("from the editor"))
	}, teatest.WithDuration(hangGuard))
	tm.Send(press("esc"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("open form"))
	}, teatest.WithDuration(hangGuard))
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	final := tm.FinalModel(t).(*Model)
	form := final.pages[pageNew].(*newPage).form
	if form.Operation() != api.OpText2Video {
		t.Fatalf("the keys opened %s", form.Operation())
	}
	got := form.Values()["prompt"]
	if want := "first line\nsecond line\nfrom the editor"; got != want {
		t.Fatalf("prompt %q, want %q", got, want)
	}
}

// typeAndSettle pastes text and presses keys in the running root, and lets every check finish.
func typeAndSettle(t *testing.T, m *Model, p *newPage, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if len([]rune(k)) > 1 && k != "enter" && k != "tab" && k != "up" && k != "down" && k != "esc" {
			send(m, tea.PasteMsg{Content: k})
		} else {
			send(m, press(k))
		}
	}
	if !runUntil(m, nil, func() bool { return p.form.Check() != nil && p.form.Checked() }, 5*time.Second) {
		t.Fatalf("the form's check never caught up:\n%s", screen(m))
	}
}

// A video refused by the images field is taken by the videos field of the
// same form: a file's verdict depends on the field it is in.
func TestFileRefusedInOneFieldIsTakenInAnother(t *testing.T) {
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	if err := os.WriteFile(clip, assets.Video("16:9"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := newTestModel(t, 140, 40)
	p := showForm(t, m, api.OpReference2Video, "svcq2-pro")
	for p.form.FocusedField() != "images" {
		send(m, press("tab"))
	}
	typeAndSettle(t, m, p, clip, "enter")
	if !strings.Contains(screen(m), "not an image") {
		t.Fatalf("a video in images must be refused on screen:\n%s", screen(m))
	}
	for p.form.FocusedField() != "videos" {
		send(m, press("tab"))
	}
	typeAndSettle(t, m, p, clip, "enter")
	if errs := p.form.Check().Errors["videos"]; len(errs) != 0 {
		t.Fatalf("the videos field refuses the video: %q\n%s", errs, screen(m))
	}
	if !strings.Contains(screen(m), "mp4") || strings.Count(screen(m), "not an image") != 1 {
		t.Fatalf("the video must be measured, not refused, in videos:\n%s", screen(m))
	}
}

// On the New page, a media list keeps what is typed through ↑ and ctrl+d,
// and a key that does nothing says so on the form's status line.
func TestMediaListKeysOnTheNewPage(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpReference2Image, "svcq2")
	for p.form.FocusedField() != "images" {
		send(m, press("tab"))
	}
	typeAndSettle(t, m, p, "https://example.com/a.png", "enter", "https://example.com/b.pn", "up")
	typeText(m, "g")
	typeAndSettle(t, m, p)
	if !strings.Contains(screen(m), "https://example.com/b.png") {
		t.Fatalf("the g typed on a selected item is lost:\n%s", screen(m))
	}
	send(m, ctrl('d'))
	if !strings.Contains(screen(m), "ctrl+d removes the item ↑ selects") || !strings.Contains(screen(m), "b.png") {
		t.Fatalf("ctrl+d on the typed line must keep it and say why:\n%s", screen(m))
	}
}

// f1 inside a form lists the keys that work there: no page key (tab to the
// next page, digits, n, q), which are text in a form.
func TestHelpInAFormListsOnlyWhatWorksThere(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	showForm(t, m, api.OpText2Video, "svcq3-pro")
	send(m, tea.KeyPressMsg{Code: tea.KeyF1})
	help := screen(m)
	for _, pageKey := range []string{"next page", "1-6", "new task", "q quit"} {
		if strings.Contains(help, pageKey) {
			t.Errorf("help in a form lists %q, which is text there:\n%s", pageKey, help)
		}
	}
	for _, works := range []string{"ctrl+c quit", "ctrl+j", "ctrl+e", "ctrl+s"} {
		if !strings.Contains(help, works) {
			t.Errorf("help in a form lacks %q:\n%s", works, help)
		}
	}
	send(m, press("esc"))
	send(m, press("esc"))
	send(m, tea.KeyPressMsg{Code: tea.KeyF1})
	if !strings.Contains(screen(m), "q quit") {
		t.Errorf("outside the form, help lists the page keys again:\n%s", screen(m))
	}
}

// The rule holds for every input: typing in the Tasks filter, the global
// part of the help is what works while typing.
func TestFullHelpWhileTyping(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("/"))
	if !m.pages[m.active].Capturing() {
		t.Fatal("/ should focus the filter")
	}
	help := m.fullHelp()
	if strings.Contains(help, "jump to page") || !strings.Contains(help, "ctrl+c") {
		t.Fatalf("help while typing in the filter:\n%s", help)
	}
}

// Switching the model from svcq2-pro to svcq4-preview on screen turns the
// free aspect_ratio text into svcq4-preview's list.
func TestModelSwitchChangesTheWidgetOnScreen(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	p := showForm(t, m, api.OpReference2Video, "svcq2-pro")
	if !strings.Contains(screen(m), "or any W:H") {
		t.Fatalf("svcq2-pro's aspect_ratio takes any W:H:\n%s", screen(m))
	}
	for p.form.FocusedField() != "model" {
		send(m, tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	}
	for i := 0; p.form.Model() != "svcq4-preview" && i < 10; i++ {
		send(m, tea.KeyPressMsg{Code: tea.KeyRight})
	}
	typeAndSettle(t, m, p)
	if strings.Contains(screen(m), "or any W:H") {
		t.Fatalf("svcq4-preview's aspect_ratio is a list, not text:\n%s", screen(m))
	}
	var row string
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.Contains(l, "aspect_ratio") {
			row = l
		}
	}
	if !strings.Contains(row, "[16:9]") || !strings.Contains(row, "3:4") {
		t.Fatalf("svcq4-preview's aspect_ratio row: %q", row)
	}
}

var brokenName = regexp.MustCompile(`svcq\d-$`)

// A model name is never split across lines, at any width, in a form's
// messages.
func TestModelNamesNeverBreakAcrossLines(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpReference2Video, "svcq3-drama")
	run(m, p.form.Apply(map[string]any{"videos": []any{"https://example.com/a.mp4"}, "resolution": "540p"}))
	typeAndSettle(t, m, p)
	for w := 44; w <= 110; w++ {
		send(m, tea.WindowSizeMsg{Width: w, Height: 40})
		for _, line := range strings.Split(screen(m), "\n") {
			line = strings.TrimRight(line, " │┃")
			if brokenName.MatchString(line) {
				t.Fatalf("at %d columns a model name breaks: %q\n%s", w, line, screen(m))
			}
		}
	}
}

// On the New page a missing file typed into a list is not added: the
// counter stays, and the status line says why.
func TestMissingFileNotAddedOnTheNewPage(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpReference2Image, "svcq2")
	for p.form.FocusedField() != "images" {
		send(m, press("tab"))
	}
	missing := filepath.Join(t.TempDir(), "gone.png")
	typeAndSettle(t, m, p, missing)
	send(m, press("enter"))
	if !strings.Contains(screen(m), "not added: no such file") || !strings.Contains(screen(m), "0 of at most 7") {
		t.Fatalf("the missing file must not be added, and enter must say why:\n%s", screen(m))
	}
}

// A setting with no effect for the model or mode is marked on its field:
// a prompt with is_rec on, bgm on svcq3.
func TestInertSettingsAreMarked(t *testing.T) {
	m, _ := newTestModel(t, 80, 40)
	p := showForm(t, m, api.OpImg2Video, "svcq1")
	for p.form.FocusedField() != "prompt" {
		send(m, press("tab"))
	}
	typeAndSettle(t, m, p, "a slow zoom")
	if strings.Contains(screen(m), "○ prompt") {
		t.Fatalf("a prompt with is_rec off is not ignored:\n%s", screen(m))
	}
	for p.form.FocusedField() != "is_rec" {
		send(m, press("tab"))
	}
	send(m, press("y")) // yes
	typeAndSettle(t, m, p)
	if !strings.Contains(screen(m), "○ prompt: ignored: with is_rec on, the service writes the prompt") {
		t.Fatalf("the prompt must be marked as ignored with is_rec on:\n%s", screen(m))
	}

	p = showForm(t, m, api.OpReference2Video, "svcq3")
	for p.form.FocusedField() != "bgm" {
		send(m, press("tab"))
	}
	send(m, press("y"))
	typeAndSettle(t, m, p)
	if !strings.Contains(screen(m), "○ bgm: no effect for the svcq3 family") {
		t.Fatalf("bgm on svcq3 must be marked:\n%s", screen(m))
	}
}

// start-end2video's images read as its first and last frame.
func TestStartEndImagesReadAsFrames(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpStartEnd2Video, "svcq2-pro")
	for p.form.FocusedField() != "images" {
		send(m, press("tab"))
	}
	if !strings.Contains(screen(m), "[0] first frame:") {
		t.Fatalf("the line must say it adds the first frame:\n%s", screen(m))
	}
	typeAndSettle(t, m, p, "https://example.com/start.png", "enter")
	if !strings.Contains(screen(m), "[0] first frame https://example.com/start.png") || !strings.Contains(screen(m), "[1] last frame:") {
		t.Fatalf("the frames must be named:\n%s", screen(m))
	}
}

// The New page speaks in people's words beside the wire names, and every
// template story says what it is.
func TestPeoplesWordsBesideWireNames(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("2"))
	for _, want := range []string{"mv                 Music video", "audio-tts          Speech"} {
		if !strings.Contains(screen(m), want) {
			t.Fatalf("the operations lack %q:\n%s", want, screen(m))
		}
	}
	wide, _ := newTestModel(t, 140, 40)
	showForm(t, wide, api.OpAudioTTS, "")
	if !regexp.MustCompile(`voice_setting_voice_id \*\s+Voice`).MatchString(screen(wide)) {
		t.Fatalf("voice_setting_voice_id must read Voice beside it:\n%s", screen(wide))
	}
	p := showForm(t, m, api.OpTemplateStory, "")
	for _, story := range []string{"love_story", "workday_feels", "monkey_king", "pigsy", "monk_tang", "one_shot"} {
		send(m, tea.KeyPressMsg{Code: tea.KeyRight})
		typeAndSettle(t, m, p)
		got := p.form.Values()["story"]
		if got != story {
			t.Fatalf("→ chose %v, want %s", got, story)
		}
		if !regexp.MustCompile(story + `: \w+`).MatchString(screen(m)) {
			t.Fatalf("the story %s is not described:\n%s", story, screen(m))
		}
	}
}

// g and G reach the ends of the New page's lists and of Settings.
func TestListEndsOnNewAndSettings(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("2"))
	send(m, press("G"))
	if p := m.pages[pageNew].(*newPage); p.selected() != api.OpTemplate2Video || !strings.Contains(screen(m), "│ template2video") {
		t.Fatalf("G must select the last operation:\n%s", screen(m))
	}
	send(m, press("g"))
	if !strings.Contains(screen(m), "│ reference2video") {
		t.Fatalf("g must select the first operation:\n%s", screen(m))
	}
	send(m, press("enter"))
	send(m, press("G"))
	if p := m.pages[pageNew].(*newPage); p.model != len(catalog.Models(api.OpReference2Video))-1 {
		t.Fatalf("G in the models: model %d", p.model)
	}
	send(m, press("esc"))
	send(m, press("6"))
	sp := m.pages[pageSettings].(*settingsPage)
	send(m, press("G"))
	if sp.cursor != len(sp.rows)-1 {
		t.Fatalf("G in Settings: row %d of %d", sp.cursor, len(sp.rows))
	}
	send(m, press("g"))
	if sp.cursor != 0 {
		t.Fatalf("g in Settings: row %d", sp.cursor)
	}
}

// Below the smallest size it lays out in, the screen says so.
func TestTerminalBelowMinimumSaysSo(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, tea.WindowSizeMsg{Width: 50, Height: 12})
	if !strings.Contains(strings.Join(strings.Fields(screen(m)), " "), "needs a terminal of at least 60x16; this one is 50x12") {
		t.Fatalf("a small terminal must be told:\n%s", screen(m))
	}
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if strings.Contains(screen(m), "needs a terminal") || !strings.Contains(screen(m), "Tasks") {
		t.Fatalf("back at 80x24 the page shows:\n%s", screen(m))
	}
}
