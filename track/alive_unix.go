//go:build unix

package track

import (
	"errors"
	"syscall"
)

// processRuns reports whether process pid of this machine still runs.
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
