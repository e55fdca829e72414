package ui

import (
	"strings"
	"testing"

	"clapper/api"
	"clapper/track"
)

// rawSince is what the program wrote verbatim since n writes.
func rawSince(m *Model, n int) string { return strings.Join(timersOf(m).raw[n:], "") }

// A task that finishes while the user looks elsewhere is announced on the
// status line, by the terminal's notification and the bell; the one whose
// row is selected is not.
func TestFinishedTaskAnnouncedWhenElsewhere(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	m.notify = notifyOSC9
	if got := m.View().WindowTitle; got != "clapper · 1 running · 1 queued" {
		t.Errorf("window title %q", got)
	}

	// The whale's row is selected: its end needs no announcement.
	n := len(timersOf(m).raw)
	send(m, finish(t, m, "811000000000000006", api.StateSuccess))
	if got := rawSince(m, n); got != "" {
		t.Errorf("the selected task was announced: %q", got)
	}
	if got := screen(m); strings.Contains(got, "is done") || strings.Contains(got, "task 811000000000000006") {
		t.Errorf("the selected task got a note:\n%s", got)
	}
	if got := m.View().WindowTitle; got != "clapper · 1 queued" {
		t.Errorf("window title after one finished: %q", got)
	}

	// The neon city is not selected: announced.
	n = len(timersOf(m).raw)
	send(m, finish(t, m, "811000000000000005", api.StateSuccess))
	got := rawSince(m, n)
	if !strings.Contains(got, "\x1b]9;clapper: t2v “neon city in the rain, drone shot” is done\a") || !strings.HasSuffix(got, "\a") {
		t.Errorf("notification %q", got)
	}
	if !strings.Contains(screen(m), "t2v “neon city in the rain, drone shot” is done") {
		t.Errorf("no note on the status line:\n%s", screen(m))
	}
	if got := m.View().WindowTitle; got != "clapper" {
		t.Errorf("window title with nothing in flight: %q", got)
	}
	// A later read of the finished task (r, or fresh URLs) is no second end.
	n = len(timersOf(m).raw)
	send(m, studioEventMsg{track.Event{Kind: track.EventState, TaskID: "811000000000000005", Operation: api.OpText2Video,
		From: api.StateSuccess, To: api.StateSuccess}})
	if got := rawSince(m, n); got != "" {
		t.Errorf("a re-read of a finished task was announced again: %q", got)
	}
}

// Tasks found finished together ring once; the status line names the
// latest.
func TestFinishedTasksTogetherRingOnce(t *testing.T) {
	m, _ := newClockedModel(t, nil)
	m.notify = notifyBellOnly
	send(m, press("2"))
	n := len(timersOf(m).raw)
	send(m, finish(t, m, "811000000000000005", api.StateSuccess))
	send(m, finish(t, m, "811000000000000006", api.StateSuccess))
	if got := rawSince(m, n); got != "\a" {
		t.Errorf("two tasks at once wrote %q, want one bell", got)
	}
	if !strings.Contains(screen(m), "t2v “a whale breaching at sunrise” is done") {
		t.Errorf("the status line does not name the latest:\n%s", screen(m))
	}
}

// On another page even the selected task is announced, a failure with its
// reason; a terminal without a known notification gets the bell alone.
func TestFinishedTaskAnnouncedFromAnotherPage(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	m.notify = notifyBellOnly
	send(m, press("5"))
	n := len(timersOf(m).raw)
	send(m, finish(t, m, "811000000000000006", api.StateFailed))
	if got := rawSince(m, n); got != "\a" {
		t.Errorf("wrote %q, want the bell", got)
	}
	if !strings.Contains(screen(m), "t2v “a whale breaching at sunrise” failed") {
		t.Errorf("no note on the status line:\n%s", screen(m))
	}
}

func TestDetectNotify(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want notifyStyle
	}{
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, notifyOSC9},
		{map[string]string{"TERM": "xterm-kitty"}, notifyOSC9},
		{map[string]string{"TERM": "xterm-256color", "WT_SESSION": "x"}, notifyOSC9},
		{map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "7600"}, notifyOSC777},
		{map[string]string{"TERM": "foot"}, notifyOSC777},
		{map[string]string{"TERM": "tmux-256color", "TERM_PROGRAM": "tmux", "VTE_VERSION": "7600"}, notifyBellOnly},
		{map[string]string{"TERM": "xterm-256color"}, notifyBellOnly},
	}
	for _, c := range cases {
		if got := detectNotify(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %d, want %d", c.env, got, c.want)
		}
	}
	if got := notification(notifyOSC777, "clapper", "t2v “a;b\x1b[31m” is done"); got != "\x1b]777;notify;clapper;t2v “a,b” is done\a\a" {
		t.Errorf("OSC 777: %q", got)
	}
}
