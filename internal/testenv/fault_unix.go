//go:build unix

package testenv

import (
	"os/signal"
	"syscall"
	"testing"
)

// LimitFileSize makes every write past n bytes of a file fail (EFBIG) for
// the rest of t, as a full disk would: the kernel's limit on a file's size,
// with the signal it sends ignored. Writes to pipes and terminals are not
// held to it, so the test's own output still flows. Tests that use it must
// not run in parallel with tests that write larger files.
func LimitFileSize(t testing.TB, n uint64) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
		signal.Reset(syscall.SIGXFSZ)
	})
}
