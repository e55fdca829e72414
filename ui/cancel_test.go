package ui

import (
	"strings"
	"testing"
)

// x cancels only a task the service takes a cancel for: a queued one, yes;
// one being generated (not off-peak), no, and the help does not offer it.
func TestCancelIsOfferedOnlyWhereAllowed(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	open := func(prompt string) {
		t.Helper()
		send(m, press("g"))
		for i := 0; i < 10; i++ {
			send(m, press("enter"))
			if m.detail() != nil && strings.Contains(screen(m), prompt) {
				return
			}
			send(m, press("esc"))
			send(m, press("down"))
		}
		t.Fatalf("no task %q to open:\n%s", prompt, screen(m))
	}
	open("a whale breaching at sunrise") // processing, not off-peak
	if strings.Contains(screen(m), "x cancel task") {
		t.Errorf("the help offers cancel for a task being generated:\n%s", screen(m))
	}
	send(m, press("x"))
	if m.dialog() != nil {
		t.Errorf("x asked to cancel a task being generated:\n%s", screen(m))
	}
	send(m, press("esc"))
	open("neon city in the rain") // queueing
	send(m, press("x"))
	if m.dialog() == nil || !strings.Contains(screen(m), "Cancel task 811000000000000005?") {
		t.Errorf("x did not offer to cancel a queued task:\n%s", screen(m))
	}
}
