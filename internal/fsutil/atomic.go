// Package fsutil holds clapper's one way of replacing a file: written
// beside it under a temporary name, flushed to the disk, renamed over it,
// and the rename itself flushed by syncing the folder, so a crash or a
// power cut leaves either the old file or the new one, never half of one.
package fsutil

import (
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, atomically and durably, with mode perm
// (set before any byte is written, so a secret is never readable by others).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	return SyncDir(dir)
}

// SyncDir flushes a folder's entries (a rename into it) to the disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncRootDir is SyncDir for the folder an os.Root confines.
func SyncRootDir(root *os.Root) error {
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
