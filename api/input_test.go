package api

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file of exactly the limit is read whole; one byte more is refused, as
// is a file that is missing or not a regular file.
func TestReadRegularFileAtTheLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if data, err := ReadRegularFile(write("at", 10), 10); err != nil || len(data) != 10 {
		t.Errorf("a file at the limit: %d bytes, %v", len(data), err)
	}
	if _, err := ReadRegularFile(write("past", 11), 10); err == nil || !strings.Contains(err.Error(), "11 B; at most 10 B") {
		t.Errorf("a file one byte past the limit: %v", err)
	}
	if _, err := ReadRegularFile(filepath.Join(dir, "missing"), 10); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := ReadRegularFile(dir, 10); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// A stream of exactly the limit is read whole; one byte more is refused.
func TestReadStreamAtTheLimit(t *testing.T) {
	if data, err := ReadStream(context.Background(), strings.NewReader("0123456789"), 10, "stdin"); err != nil || string(data) != "0123456789" {
		t.Errorf("a stream at the limit: %q, %v", data, err)
	}
	if _, err := ReadStream(context.Background(), strings.NewReader("0123456789x"), 10, "stdin"); err == nil {
		t.Error("a stream one byte past the limit was read")
	}
}

// Sizes from a gibibyte on read in GB.
func TestByteSizeAtAGibibyte(t *testing.T) {
	if got := ByteSize(1 << 30); got != "1 GB" {
		t.Errorf("ByteSize(1 GiB) = %q", got)
	}
	if got := ByteSize(1<<30 - 1); got != "1024 MB" {
		t.Errorf("ByteSize(1 GiB - 1) = %q", got)
	}
}
