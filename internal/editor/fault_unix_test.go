//go:build unix

package editor

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"clapper/internal/testenv"
)

// A text that cannot be written whole (a full disk) is not opened in the
// editor cut short: the edit ends with the error, and no temp file stays.
func TestEditOfATextThatCannotBeWrittenSaysSo(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	testenv.LimitFileSize(t, 1024)
	msg, ok := Edit("prompt", strings.Repeat("a long prompt ", 500), "md")().(EditedMsg)
	if !ok || msg.ID != "prompt" || !errors.Is(msg.Err, syscall.EFBIG) {
		t.Fatalf("Edit of a text past the disk's room: %#v, want an EditedMsg with EFBIG", msg)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "clapper-*")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}
