package sandbox

import (
	"clapper/internal/fsutil"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// fileStore keeps the state in a JSON file that several processes (the TUI
// and CLI commands) share: each change happens under an exclusive lock on a
// companion .lock file, after reloading the state if another process wrote
// it since, and is written back atomically (temp file, then rename).
type fileStore struct {
	path string
	lock *os.File
	seen fileStamp
}

// fileStamp tells whether the file changed since it was last read or
// written; a rename gives the file a new inode, so every save changes it.
type fileStamp struct {
	ino   uint64
	size  int64
	mtime time.Time
}

func openStore(path string) (*fileStore, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	return &fileStore{path: path, lock: lock}, nil
}

func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{ino: inode(fi), size: fi.Size(), mtime: fi.ModTime()}
}

// load returns the state on disk when it changed since last seen, nil when
// it did not or there is none yet. A file that cannot be read as state is
// moved aside, so that a damaged file costs its tasks but not the sandbox.
func (f *fileStore) load() (*state, error) {
	fi, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	if stampOf(fi) == f.seen {
		return nil, nil
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	st, err := decodeState(b)
	if err != nil {
		aside := fmt.Sprintf("%s.corrupt-%d", f.path, time.Now().Unix())
		if rerr := os.Rename(f.path, aside); rerr != nil {
			return nil, fmt.Errorf("sandbox state %s unreadable (%v) and not movable: %w", f.path, err, rerr)
		}
		return nil, fmt.Errorf("sandbox state %s unreadable, moved to %s: %w", f.path, aside, errUnreadable)
	}
	f.seen = stampOf(fi)
	return st, nil
}

var errUnreadable = errors.New("starting afresh")

func (f *fileStore) save(st *state) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("sandbox state: %w", err)
	}
	if err := fsutil.WriteFile(f.path, b, 0o600); err != nil {
		return fmt.Errorf("sandbox state: %w", err)
	}
	fi, err := os.Stat(f.path)
	if err != nil {
		return fmt.Errorf("sandbox state: %w", err)
	}
	f.seen = stampOf(fi)
	return nil
}

func (f *fileStore) close() error { return f.lock.Close() }
