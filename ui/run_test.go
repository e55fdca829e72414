package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"clapper/api"
)

// Quitting right after a key keeps what the key changed: the draft writes
// whose commands had not run when the program stopped are run before the
// process ends, in the order they were made, and a command that runs late
// writes nothing over them.
func TestQuittingKeepsTheDraftOfTheLastKeys(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	p := showForm(t, m, api.OpText2Video, "svcq1")
	typeAndSettle(t, m, p, "a fox")
	prompt := func() any {
		t.Helper()
		dr, ok, err := p.drafts.Load(api.OpText2Video)
		if !ok || err != nil {
			t.Fatalf("no draft: %v", err)
		}
		return dr.Values["prompt"]
	}
	if got := prompt(); got != "a fox" {
		t.Fatalf("the draft before quitting holds %v", got)
	}
	// Two keys, and the program stops before their commands run.
	_, first := m.Update(press("!"))
	_, second := m.Update(press("?"))
	if err := m.keepDrafts(time.Second); err != nil {
		t.Fatal(err)
	}
	if got := prompt(); got != "a fox!?" {
		t.Fatalf("quitting kept %q, want the last keys' %q", got, "a fox!?")
	}
	run(m, first)
	run(m, second)
	if got := prompt(); got != "a fox!?" {
		t.Fatalf("a command run after quitting wrote %q", got)
	}
}

// Quitting waits for a draft being written, but not past its bound (a
// disk that hangs must not hold the terminal), and says so; a write that
// fails is named with its operation.
func TestQuittingWaitsForDraftWritesAtMostItsBound(t *testing.T) {
	w := newDraftWrites()
	started, release := make(chan struct{}), make(chan struct{})
	n := w.issue(api.OpText2Video, func() error {
		close(started)
		<-release
		return nil
	})
	go w.run(n)
	<-started
	begin := time.Now()
	err := w.flush(50 * time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "still being written after 50ms") {
		t.Errorf("a hung write: %v, want the bound said", err)
	}
	if waited := time.Since(begin); waited > time.Second {
		t.Errorf("quitting waited %v for a hung write", waited)
	}
	close(release)
	// Once the write ends, the next ones run after it, in their order.
	var order []string
	w.issue(api.OpExtend, func() error { order = append(order, "extend"); return errors.New("disk full") })
	w.issue(api.OpMultiframe, func() error { order = append(order, "multiframe"); return nil })
	err = w.flush(time.Second)
	if err == nil || err.Error() != "the draft of extend could not be kept: disk full" {
		t.Errorf("a failed write: %v", err)
	}
	if strings.Join(order, " ") != "extend multiframe" {
		t.Errorf("writes ran as %v", order)
	}
	if err := w.flush(time.Second); err != nil {
		t.Errorf("nothing left to write: %v", err)
	}
}
