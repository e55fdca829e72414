//go:build unix

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"clapper/internal/testenv"
)

// A write that fails half-way (a full disk) leaves the old file whole and
// says so: the error is not lost on the way to the rename.
func TestWriteFileThatFailsMidWayKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.LimitFileSize(t, 1024)
	err := WriteFile(p, make([]byte, 4096), 0o600)
	if !errors.Is(err, syscall.EFBIG) {
		t.Errorf("WriteFile past the disk's room: %v, want EFBIG", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("the file holds %d bytes, want the old 3", len(b))
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the folder holds %d entries, want only the file: a temp file was left", len(left))
	}
}

// A folder that cannot be opened is named in SyncDir's error.
func TestSyncDirOfAMissingFolder(t *testing.T) {
	if err := SyncDir(filepath.Join(t.TempDir(), "gone")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SyncDir of a missing folder: %v, want not exist", err)
	}
}
