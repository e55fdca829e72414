package ui

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The stored-subject dialog completes image paths as every path field does
// (tab writes the common prefix, a second tab lists, the dialog stays),
// reads each image at its step, and keeps what was typed when a file is
// wrong or the service refuses the subject.
func TestSubjectDialogCompletesAndChecksEachStep(t *testing.T) {
	dir := t.TempDir()
	var picture bytes.Buffer
	if err := png.Encode(&picture, image.NewGray(image.Rect(0, 0, 200, 200))); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mia_front.png", "mia_side.png"} {
		if err := os.WriteFile(filepath.Join(dir, name), picture.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "mia_notes.png"), []byte("not a picture"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ := newTestModel(t, 80, 24)
	send(m, press("4"))
	send(m, press("s"))
	typeText(m, "mia")
	send(m, press("enter"))
	if !strings.Contains(screen(m), "images (2 of 3)") {
		t.Fatalf("the images step must follow the name:\n%s", screen(m))
	}
	typeText(m, dir+"/mia_f")
	send(m, press("tab"))
	if !strings.Contains(screen(m), "mia_front.png") || m.dialog() == nil {
		t.Fatalf("tab must complete mia_front.png in the dialog:\n%s", screen(m))
	}
	typeText(m, ", "+dir+"/mi")
	send(m, press("tab"))
	send(m, press("tab"))
	if !strings.Contains(screen(m), "mia_front.png  mia_notes.png  mia_side.png") || m.dialog() == nil {
		t.Fatalf("a second tab must list the images and keep the dialog:\n%s", screen(m))
	}
	typeText(m, "gone.png")
	send(m, press("enter"))
	if s := screen(m); !strings.Contains(s, "images (2 of 3)") || !strings.Contains(s, "mia_gone.png") || !strings.Contains(s, "no such file") {
		t.Fatalf("a missing file must be named at its step, the text kept:\n%s", s)
	}
	for range len("gone.png") {
		send(m, press("backspace"))
	}
	typeText(m, "side.png, ssupload:nope") // read by the service alone
	send(m, press("enter"))
	if !strings.Contains(screen(m), "voice (3 of 3)") {
		t.Fatalf("checked images must lead to the voice step:\n%s", screen(m))
	}
	typeText(m, "narrator_x")
	send(m, press("enter"))
	s := screen(m)
	if m.dialog() == nil || !strings.Contains(s, "not saved") || !strings.Contains(s, "images (2 of 3)") || !strings.Contains(s, "ssupload:nope") {
		t.Fatalf("a refused subject must open the step it names again, with the reason and the text:\n%s", s)
	}
	send(m, press("enter"))
	if !strings.Contains(screen(m), "narrator_x") {
		t.Fatalf("the voice typed before the refusal must still be there:\n%s", screen(m))
	}
	send(m, tea.KeyPressMsg{Code: tea.KeyEscape})
}

// The download folder completes as every path does, folders only.
func TestDownloadFolderCompletesFolders(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"photos/a", "photos/b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "phone.png"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ := newTestModel(t, 100, 30)
	send(m, press("6"))
	p := m.pages[pageSettings].(*settingsPage)
	for p.rows[p.cursor].label != "Download folder" {
		send(m, press("down"))
	}
	send(m, press("enter"))
	typeText(m, dir+"/ph")
	send(m, press("tab"))
	if got := p.input.Value(); got != dir+"/photos/" {
		t.Fatalf("tab wrote %q, want the folder photos/ (phone.png is no folder)", got)
	}
	send(m, press("tab"))
	if !p.editing || !strings.Contains(screen(m), "a/  b/") {
		t.Fatalf("a second tab must list the folders and stay in the row:\n%s", screen(m))
	}
}

// With the Voices page's help open, s closes the help and then opens the
// New subject dialog; its esc cancels it, back to the page (it closed the
// dialog over the help, which looked like a step back).
func TestSubjectDialogOverTheHelp(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("4"))
	send(m, press("?"))
	send(m, press("s"))
	if got := screen(m); m.dialog() == nil || strings.Contains(got, "Keys: Voices") || !strings.Contains(got, "New subject · name (1 of 3)") {
		t.Fatalf("s over the help:\n%s", got)
	}
	typeText(m, "mia")
	send(m, press("enter"))
	send(m, press("esc"))
	if got := screen(m); m.dialog() != nil || strings.Contains(got, "Keys: Voices") || !strings.Contains(got, "Stored subjects") {
		t.Errorf("esc did not cancel the dialog, back to the page:\n%s", got)
	}
}
