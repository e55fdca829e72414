package editor

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCommandPrefersVisualThenEditorThenVi(t *testing.T) {
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "")
	if got := Command(); !slices.Equal(got, []string{"vi"}) {
		t.Errorf("no editor set: %q, want vi", got)
	}
	t.Setenv("EDITOR", "nano -w")
	if got := Command(); !slices.Equal(got, []string{"nano", "-w"}) {
		t.Errorf("EDITOR with arguments: %q", got)
	}
	t.Setenv("VISUAL", "code --wait")
	if got := Command(); !slices.Equal(got, []string{"code", "--wait"}) {
		t.Errorf("VISUAL set: %q, want it before EDITOR", got)
	}
}

// Edit is called from Update: it must leave the disk alone until the
// program runs its command.
func TestEditWritesNothingUntilItsCommandRuns(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	cmd := Edit("prompt", "a text", "txt")
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Fatalf("Edit wrote %v before its command ran", files)
	}
	if msg := cmd(); msg == nil {
		t.Fatal("the command asked for no editor")
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("the command should have written the text to hand over: %v", files)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, files[0].Name())); string(b) != "a text" {
		t.Fatalf("the editor would open %q", b)
	}
}
