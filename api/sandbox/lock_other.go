//go:build !unix

package sandbox

import "io/fs"

// Without flock the state file is safe for one process at a time: the
// in-process mutex still orders everything within it.
func (f *fileStore) lockEx() error { return nil }

func (f *fileStore) unlock() error { return nil }

func inode(fs.FileInfo) uint64 { return 0 }
