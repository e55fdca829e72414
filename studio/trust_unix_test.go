//go:build unix

package studio

import (
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
