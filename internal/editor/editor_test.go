package editor

import (
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
