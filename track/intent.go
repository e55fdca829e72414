package track

import (
	"clapper/record"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"
)

// Requests still being sent. One rule for every front end (CLI, watch,
// TUI, MCP): a request in state submitting is of unknown outcome only when
// nobody is still sending it. Its sender beats every intentBeat while the
// POST runs; a request whose sender has not beaten for IntentStale, whose
// sender is a process of this machine that no longer runs, or that has no
// sender (an older clapper left it) is of unknown outcome. A slow answer to
// a live process is therefore never mistaken for a lost one, and abandoning
// is only offered for requests nobody is waiting on.
const (
	IntentStale = 30 * time.Second
	intentBeat  = 10 * time.Second
)

var (
	senderOnce sync.Once
	sender     string
)

// Sender names this process in history's intent rows: host, process id
// and a random token (a pid is reused after a reboot).
func Sender() string {
	senderOnce.Do(func() { sender = newToken() })
	return sender
}

// newToken names a part of this process in history: host/pid/random, the
// form ownerGone reads.
func newToken() string {
	b := make([]byte, 6)
	rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", hostname(), os.Getpid(), hex.EncodeToString(b))
}

// OutcomeUnknown reports whether a request is of unknown outcome now: still
// submitting, and nobody sending it any more.
func OutcomeUnknown(t record.Task, now time.Time) bool {
	if t.State != record.StateSubmitting {
		return false
	}
	if t.Sender == "" || ownerGone(t.Sender) {
		return true
	}
	return now.Sub(t.SenderBeat) > IntentStale
}

// UnknownAt is when a request still being sent becomes of unknown outcome
// unless its sender beats again; zero for one that is not being sent.
func UnknownAt(t record.Task) time.Time {
	if t.State != record.StateSubmitting || t.Sender == "" || ownerGone(t.Sender) {
		return time.Time{}
	}
	return t.SenderBeat.Add(IntentStale)
}

// beat renews the sender's claim on request localID until stop is called:
// it runs while the POST waits for its answer.
func (t *Tracker) beat(localID int64) (stop func()) {
	every := t.beatEvery
	if every <= 0 {
		every = intentBeat
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				// A failed beat is retried at the next tick; an answered
				// request (ErrConflict) needs none.
				t.Store.BeatIntent(ctx, localID, Sender())
			}
		}
	}()
	return func() { cancel(); <-done }
}
