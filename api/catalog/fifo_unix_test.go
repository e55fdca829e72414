//go:build unix

package catalog

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A catalog file that is a FIFO is refused at once: opening it would wait
// for a writer for ever.
func TestCatalogFIFOIsRefusedAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "catalog.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := LoadUserFile(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}
}
