//go:build unix

package studio

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 19.7 and 19.14: a settings file that is not a regular file (a FIFO
// nobody writes to) is refused at once, naming the file, not waited on.
func TestSettingsFIFOIsRefusedAtOnce(t *testing.T) {
	dir := isolate(t)
	p := filepath.Join(dir, "settings.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() {
		c := Config{DataDir: t.TempDir()}
		done <- c.Resolve()
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "regular file") {
			t.Errorf("err %v", err)
		}
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("reading a FIFO settings file blocks")
	}
}

// Trust round two: a settings file that is a link to a key-holding file
// others may read is not changed through the link: the warning names the
// file it points to. A data directory anyone can write to is warned about.
func TestSettingsLinkAndOpenDataDirAreNamed(t *testing.T) {
	dir := isolate(t)
	target := filepath.Join(t.TempDir(), "shared-settings.json")
	if err := os.WriteFile(target, []byte(`{"api_key":"secret-key-000000","base_url":"https://svc.example"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o644)
	if err := os.Symlink(target, filepath.Join(dir, "settings.json")); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(data, 0o777)
	c := Config{DataDir: data}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o644 {
		t.Errorf("the linked file was changed to %v", st.Mode().Perm())
	}
	all := strings.Join(c.Warnings, "\n")
	if !strings.Contains(all, "is a link to "+target) || !strings.Contains(all, "not changed through the link") {
		t.Errorf("warnings %q", c.Warnings)
	}
	if !strings.Contains(all, "data directory "+data+" can be written by anyone (mode 0777)") {
		t.Errorf("warnings %q", c.Warnings)
	}
}
