package forms

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
)

// deliver sends a message to the form and feeds back what its commands
// produce for the form itself (checks, folder listings).
func deliver(f *Form, msg tea.Msg) {
	for _, m := range settle(f, f.Update(msg)) {
		if l, ok := m.(pathsListedMsg); ok {
			deliver(f, l)
		}
	}
	syncCheck(f)
}

// Tab completes a local path from a folder listing read in a command:
// Update never reads the disk, so until the listing for the text arrives,
// tab has nothing to complete.
func TestTabCompletesPathsListedInACommand(t *testing.T) {
	f := newTestForm(t, api.OpLipSync, "")
	dir := f.ctx.Dir
	for _, name := range []string{"clip_one.mp4", "clip_two.mp4", "clip_notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	focus(t, f, "video_url")
	e := f.focused().(*lineEditor)

	typeText(f, "./cl") // the listing's command is dropped
	if e.completion() != "" {
		t.Fatal("tab completes before the folder was listed: the disk was read in Update")
	}
	deliver(f, keyPress("i")) // "./cli", listed in its command
	deliver(f, keyPress("tab"))
	if got := f.Values()["video_url"]; got != "./clip_" {
		t.Fatalf("tab wrote %v, want ./clip_", got)
	}
	if want := []string{"./clip_one.mp4", "./clip_two.mp4"}; !slices.Equal(e.completions, want) {
		t.Errorf("candidates %v, want %v (videos only)", e.completions, want)
	}
	deliver(f, keyPress("t"))
	deliver(f, keyPress("tab"))
	if got := f.Values()["video_url"]; got != "./clip_two.mp4" {
		t.Errorf("tab wrote %v, want ./clip_two.mp4", got)
	}
}
