package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesWholeWithMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "new" {
		t.Fatalf("file holds %q (%v), want new", b, err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("the folder holds %d entries, want only the file: a temp file was left", len(left))
	}
}

func TestWriteFileLeavesTheOldFileWhenItFails(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("old"), 0o644)
	// A folder where the file goes: the rename fails.
	bad := filepath.Join(dir, "sub")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "x"), nil, 0o644)
	if err := WriteFile(bad, []byte("new"), 0o644); err == nil {
		t.Fatal("replacing a folder by a file succeeded")
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("an unrelated file changed: %q", b)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 2 {
		t.Errorf("the folder holds %d entries, want 2: a temp file was left", len(left))
	}
}

// SyncRootDir flushes the folder of an open root, and says when the root
// is closed.
func TestSyncRootDir(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := SyncRootDir(root); err != nil {
		t.Errorf("SyncRootDir: %v", err)
	}
	root.Close()
	if err := SyncRootDir(root); !errors.Is(err, os.ErrClosed) {
		t.Errorf("SyncRootDir of a closed root: %v, want it named closed", err)
	}
}
