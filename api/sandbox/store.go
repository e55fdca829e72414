package sandbox

import (
	"bufio"
	"bytes"
	"clapper/internal/fsutil"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// fileStore keeps the state in files that several processes (the TUI and
// CLI commands) share: each change happens under an exclusive lock on a
// companion .lock file, after catching up with what another process wrote.
//
// The state is a snapshot (the JSON file at path, written atomically: temp
// file, then rename) and a journal beside it (path + ".journal"): each save
// appends one line with the units that changed and the rest of the state
// (voices, callbacks to deliver, counters: small), and syncs it. A change
// then costs the same with 100 tasks held as with 20,000. When the journal
// outgrows the snapshot, the next save writes a new snapshot and empties
// the journal, so reading the state back stays in proportion to its size.
type fileStore struct {
	path string
	lock *os.File
	// seen is the snapshot last read or written; read is how much of the
	// journal this process's state holds.
	seen fileStamp
	read int64
	size int64 // of the snapshot, for when to compact
	// minCompact is the journal size below which no snapshot is rewritten.
	minCompact int64
}

// fileStamp tells whether a file changed since it was last read or
// written; a rename gives the file a new inode, so every snapshot changes it.
type fileStamp struct {
	ino   uint64
	size  int64
	mtime time.Time
}

// record is one journal line.
type record struct {
	N     int64           `json:"n"` // numbers the records since the first snapshot
	Units []*unit         `json:"units,omitempty"`
	Drop  []string        `json:"drop,omitempty"`
	Rest  json.RawMessage `json:"rest"` // the state without its units
}

func openStore(path string) (*fileStore, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	return &fileStore{path: path, lock: lock, minCompact: 1 << 20}, nil
}

func (f *fileStore) journalPath() string { return f.path + ".journal" }

func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{ino: inode(fi), size: fi.Size(), mtime: fi.ModTime()}
}

// load brings cur up to date with the files: the records another process
// appended since, or the whole state when the snapshot was rewritten (or
// cur is nil). It returns the state to use, nil when there is none yet. A
// file that cannot be read as state is moved aside, so that a damaged file
// costs its tasks but not the sandbox.
func (f *fileStore) load(cur *state) (*state, error) {
	fi, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	if cur == nil || stampOf(fi) != f.seen {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return nil, fmt.Errorf("sandbox state: %w", err)
		}
		st, err := decodeState(b)
		if err != nil {
			return nil, f.moveAside(err)
		}
		f.seen, f.size, f.read, cur = stampOf(fi), fi.Size(), 0, st
	}
	if err := f.replay(cur); err != nil {
		return nil, f.moveAside(err)
	}
	return cur, nil
}

// replay applies the journal's records past what st holds.
func (f *fileStore) replay(st *state) error {
	j, err := os.Open(f.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer j.Close()
	fi, err := j.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < f.read {
		f.read = 0 // emptied by a new snapshot, which load read
	}
	if fi.Size() == f.read {
		return nil
	}
	if _, err := j.Seek(f.read, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReader(j)
	applied := false
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			// A line without its end is a save cut short (a crash): it was
			// never acknowledged, so it is not part of the state, and goes
			// before the next record is appended after it.
			if len(line) > 0 {
				if err := os.Truncate(f.journalPath(), f.read); err != nil {
					return err
				}
			}
			break
		}
		if err != nil {
			return err
		}
		f.read += int64(len(line))
		if err := st.apply(line); err != nil {
			return err
		}
		applied = true
	}
	if applied {
		st.index()
	}
	return nil
}

// apply takes one journal record into st (index must follow).
func (st *state) apply(line []byte) error {
	var rec record
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber() // as decodeState: parameters keep json.Number
	if err := dec.Decode(&rec); err != nil {
		return err
	}
	if rec.N <= st.Journal {
		return nil // already in the snapshot
	}
	rest, err := decodeState(rec.Rest)
	if err != nil {
		return err
	}
	// Units is indexed again below: what trim forgot must be out of it.
	st.compact()
	// What this process changed and has not saved yet (a save that failed)
	// stays to be saved.
	units, changed, dropped := st.Units, st.changed, st.dropped
	*st = *rest
	st.Journal, st.changed, st.dropped = rec.N, changed, dropped
	at := make(map[string]int, len(units))
	for i, u := range units {
		at[u.ID] = i
	}
	for _, u := range rec.Units {
		if i, ok := at[u.ID]; ok {
			units[i] = u
		} else {
			at[u.ID] = len(units)
			units = append(units, u)
		}
	}
	if len(rec.Drop) > 0 {
		drop := make(map[string]bool, len(rec.Drop))
		for _, id := range rec.Drop {
			drop[id] = true
		}
		units = slices.DeleteFunc(units, func(u *unit) bool { return drop[u.ID] })
	}
	st.Units = units
	return nil
}

func (f *fileStore) moveAside(cause error) error {
	aside := fmt.Sprintf("%s.corrupt-%d", f.path, time.Now().Unix())
	if rerr := os.Rename(f.path, aside); rerr != nil {
		return fmt.Errorf("sandbox state %s unreadable (%v) and not movable: %w", f.path, cause, rerr)
	}
	os.Rename(f.journalPath(), aside+".journal")
	f.seen, f.read = fileStamp{}, 0
	return fmt.Errorf("sandbox state %s unreadable, moved to %s: %w", f.path, aside, errUnreadable)
}

var errUnreadable = errors.New("starting afresh")

// save writes what changed in st since the last save: one journal record,
// or a whole snapshot when there is none yet or the journal outgrew it.
func (f *fileStore) save(st *state) error {
	if f.seen == (fileStamp{}) || f.read > max(f.size, f.minCompact) {
		return f.snapshot(st)
	}
	rest := *st
	rest.Units = nil
	restJSON, err := json.Marshal(&rest)
	if err != nil {
		return fmt.Errorf("sandbox state: %w", err)
	}
	rec := record{N: st.Journal + 1, Drop: st.dropped, Rest: restJSON}
	for _, u := range st.changed {
		rec.Units = append(rec.Units, u)
	}
	slices.SortFunc(rec.Units, func(a, b *unit) int { return int(a.Seq - b.Seq) })
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("sandbox state: %w", err)
	}
	j, err := os.OpenFile(f.journalPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("sandbox state: %w", err)
	}
	_, err = j.Write(append(line, '\n'))
	if err == nil {
		err = j.Sync()
	}
	if cerr := j.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sandbox state: %w", err)
	}
	st.Journal, f.read = rec.N, f.read+int64(len(line)+1)
	st.changed, st.dropped = nil, nil
	return nil
}

// snapshot writes the whole state and empties the journal: the snapshot
// holds every record, and says so (Journal), should a crash leave the
// journal as it was.
func (f *fileStore) snapshot(st *state) error {
	st.compact()
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
	if err := os.Truncate(f.journalPath(), 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sandbox state: %w", err)
	}
	f.seen, f.size, f.read = stampOf(fi), fi.Size(), 0
	st.changed, st.dropped = nil, nil
	return nil
}

func (f *fileStore) close() error { return f.lock.Close() }
