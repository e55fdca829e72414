//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

func (f *fileStore) lockEx() error { return syscall.Flock(int(f.lock.Fd()), syscall.LOCK_EX) }

func (f *fileStore) unlock() error { return syscall.Flock(int(f.lock.Fd()), syscall.LOCK_UN) }

func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
