package forms

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
)

// deliver sends a message to the form and feeds back what its commands
// produce for the form itself (checks, folder listings).
func deliver(f *Form, msg tea.Msg) {
	for _, m := range settle(f, f.Update(msg)) {
		if l, ok := m.(PathsListedMsg); ok {
			deliver(f, l)
		}
	}
	syncCheck(f)
}

func writeFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, name := range names {
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// Tab completes a local path from a folder listing read in a command:
// Update never reads the disk, so a tab pressed before the listing for the
// text arrives waits for it, and is applied when it comes.
func TestTabCompletesPathsListedInACommand(t *testing.T) {
	f := newTestForm(t, api.OpLipSync, "")
	writeFiles(t, f.ctx.Dir, "clip_one.mp4", "clip_two.mp4", "clip_notes.txt")
	focus(t, f, "video_url")
	e := f.focused().(*lineEditor)

	typeText(f, "./cl") // the listing's command is dropped
	cmd := f.Update(keyPress("tab"))
	if got := f.Values()["video_url"]; got != "./cl" || f.focusedName() != "video_url" {
		t.Fatalf("tab before the listing: value %v on %s; want ./cl kept, the field focused", got, f.focusedName())
	}
	for _, m := range settle(f, cmd) { // the listing tab asked for
		deliver(f, m)
	}
	if got := f.Values()["video_url"]; got != "./clip_" {
		t.Fatalf("the waiting tab wrote %v, want ./clip_", got)
	}
	if want := []string{"./clip_one.mp4", "./clip_two.mp4"}; !slices.Equal(e.paths.Candidates(), want) {
		t.Errorf("candidates %v, want %v (videos only)", e.paths.Candidates(), want)
	}
	deliver(f, keyPress("t"))
	deliver(f, keyPress("tab"))
	if got := f.Values()["video_url"]; got != "./clip_two.mp4" {
		t.Errorf("tab wrote %v, want ./clip_two.mp4", got)
	}
}

// A second tab on an ambiguous prefix lists the candidates, as bash does,
// and the field keeps the focus and the text; a path nothing matches says
// so. Only a whole file lets tab go on to the next field.
func TestSecondTabListsAndNeverLeavesTheField(t *testing.T) {
	f := newTestForm(t, api.OpLipSync, "")
	writeFiles(t, f.ctx.Dir, "take_a.mp4", "take_b.mp4", "takes/")
	focus(t, f, "video_url")
	deliver(f, keyPress("."))
	for _, r := range "/ta" {
		deliver(f, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	deliver(f, keyPress("tab"))
	if got := f.Values()["video_url"]; got != "./take" || f.focusedName() != "video_url" {
		t.Fatalf("first tab: %v on %s, want ./take on video_url", got, f.focusedName())
	}
	deliver(f, keyPress("tab"))
	if got := f.Values()["video_url"]; got != "./take" || f.focusedName() != "video_url" {
		t.Fatalf("second tab left the field or changed the text: %v on %s", got, f.focusedName())
	}
	if v := f.View(); !strings.Contains(v, "take_a.mp4  take_b.mp4  takes/") {
		t.Fatalf("the second tab must list the candidates:\n%s", v)
	}
	for _, r := range "zz" {
		deliver(f, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	deliver(f, keyPress("tab"))
	if v := f.View(); f.focusedName() != "video_url" || !strings.Contains(v, "no file or folder starts with ./takezz") {
		t.Fatalf("a tab matching nothing must stay and say so (on %s):\n%s", f.focusedName(), v)
	}
	for range 2 {
		deliver(f, keyPress("backspace"))
	}
	deliver(f, tea.KeyPressMsg{Code: '_', Text: "_"})
	deliver(f, tea.KeyPressMsg{Code: 'a', Text: "a"})
	deliver(f, keyPress("tab"))
	if got := f.Values()["video_url"]; got != "./take_a.mp4" || f.focusedName() != "video_url" {
		t.Fatalf("unique completion: %v on %s", got, f.focusedName())
	}
	deliver(f, keyPress("tab"))
	if f.focusedName() == "video_url" {
		t.Fatal("tab on a whole file must go on to the next field, as on any field")
	}
}

// In a list field, tab on a partial path completes it and never adds it
// as an item; leaving the field with a path not known to be a file keeps
// it on the line, never in the list.
func TestTabInAListNeverAddsAPartialPath(t *testing.T) {
	f := newTestForm(t, api.OpReference2Image, "svcq2")
	writeFiles(t, f.ctx.Dir, "cat_1.png", "cat_2.png")
	focus(t, f, "images")
	l := f.focused().(*listEditor)
	for _, r := range "./ca" {
		deliver(f, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	for range 3 {
		deliver(f, keyPress("tab"))
		if len(l.items) != 0 || f.focusedName() != "images" {
			t.Fatalf("tab added %v or left the field (on %s)", l.items, f.focusedName())
		}
	}
	if l.line.val != "./cat_" {
		t.Fatalf("line %q, want ./cat_", l.line.val)
	}
	deliver(f, keyPress("down"))
	if len(l.items) != 0 {
		t.Fatalf("leaving the field added the partial path: %v", l.items)
	}
	if v := f.View(); !strings.Contains(v, "./cat_") {
		t.Fatalf("the partial path must stay in sight:\n%s", v)
	}
}

// A subject's image part completes as every path field does: tab writes
// the common prefix, a second tab lists, the focus stays on the part.
func TestSubjectImageCompletesLikeEveryPath(t *testing.T) {
	f := newTestForm(t, api.OpReference2Video, "svcq2")
	writeFiles(t, f.ctx.Dir, "mia_front.png", "mia_side.png", "mia.mp4")
	focus(t, f, "subjects")
	e := f.focused().(*subjectsEditor)
	deliver(f, keyPress("ctrl+n"))
	for _, r := range "mia" {
		deliver(f, keyPress(string(r)))
	}
	deliver(f, keyPress("enter")) // to the first image
	for _, r := range "./mi" {
		deliver(f, keyPress(string(r)))
	}
	for range 2 {
		deliver(f, keyPress("tab"))
		if f.focusedName() != "subjects" || !e.onPart(partImage) {
			t.Fatalf("tab left the image part (on %s)", f.focusedName())
		}
	}
	if got := e.subjects[0].images; len(got) != 1 || got[0] != "./mia_" {
		t.Fatalf("images %q, want [./mia_] (images only: not mia.mp4)", got)
	}
	if v := f.View(); !strings.Contains(v, "mia_front.png  mia_side.png") {
		t.Fatalf("the second tab must list the images:\n%s", v)
	}
}
