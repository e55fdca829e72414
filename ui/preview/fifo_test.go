//go:build unix

package preview

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Opening a FIFO for reading blocks until someone writes: a preview command
// must refuse it from its stat instead of hanging.
func TestFIFOIsRefusedWithoutBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "result.png")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("cannot make a FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := load(path, 60, 30, false)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Load error %v, want not a regular file", err)
		}
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("Load blocked on a FIFO")
	}
}
