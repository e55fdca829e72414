package ui

import (
	"syscall"
	"time"
	"unsafe"
)

// On Linux the process's CPU clock counts in nanoseconds; getrusage counts
// in scheduler ticks (4 ms here), coarser than a first frame's work.
func init() {
	processCPU = func() time.Duration {
		const clockProcessCPUTime = 2 // CLOCK_PROCESS_CPUTIME_ID
		var ts syscall.Timespec
		if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
			return 0
		}
		return time.Duration(ts.Nano())
	}
}
