package ui

// Tests written against hand-made mutants of mutants/ui.txt that the
// earlier tests let live: each checks what a person sees where the mutant
// would change it.

import (
	"context"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
)

// A voice id from the service is shown cleaned everywhere, the question
// before forgetting it included: its escape sequences, carriage return and
// backspace neither reach the terminal nor break the dialog's frame.
func TestAHostileVoiceIdCannotControlTheTerminal(t *testing.T) {
	now := testNow
	evil := "evil\x1b]52;c;aGVsbG8=\x07\u009b31m\r\b\x1b[2J_voice"
	m := newVoicesModel(t, 120, 30, []testVoice{{id: evil, ago: 2 * time.Hour}}, &now)
	for _, step := range []string{"list", "d"} {
		if step != "list" {
			send(m, press(step))
		}
		if r, bad := controlOutsideSGR(m.View().Content); bad {
			t.Errorf("%s: control character %U reached the screen:\n%q", step, r, m.View().Content)
		}
	}
	if want := "│ Forget voice " + api.CleanLine(evil) + "?"; !strings.Contains(screen(m), want) {
		t.Errorf("d should ask %q:\n%s", want, screen(m))
	}
}

// A voice days from its deletion shows whole hours, so the page is drawn
// once an hour, as the label turns, not every minute.
func TestAVoiceDaysAwayRedrawsByTheHour(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 120, 30, []testVoice{{id: "slow_voice", ago: 2*time.Hour + 30*time.Minute}}, &now)
	wait := func(d time.Duration) { now = now.Add(d); fireDue(m) }
	frame, shown := m.env.frame, screen(m)
	if !strings.Contains(shown, "6d 21h left") {
		t.Fatalf("165h30m left:\n%s", shown)
	}
	wait(30 * time.Minute)
	if m.env.frame != frame {
		t.Errorf("%d redraws in 30 minutes with one voice 6d 21h from deletion", m.env.frame-frame)
	}
	wait(time.Millisecond) // 165 h left turn to 164 h 59 min and more

	if m.env.frame != frame+1 || !strings.Contains(screen(m), "6d 20h left") {
		t.Errorf("%d redraws as the hour turned:\n%s", m.env.frame-frame, screen(m))
	}
}

// A reminder timer set for later gives way to one for a sooner crossing
// and, when its time comes, does nothing: the page keeps one timer for
// its next crossing, not one more for each timer it replaced.
func TestAReplacedReminderTimerSetsNoOther(t *testing.T) {
	now := testNow
	m := newVoicesModel(t, 120, 30, []testVoice{{id: "day_voice", ago: 138 * time.Hour}}, &now) // 30h left: a timer in an hour
	reminderTimers := func() int {
		n := 0
		for _, p := range timersOf(m).pending {
			if _, ok := unowned(p.msg).(voiceReminderMsg); ok {
				n++
			}
		}
		return n
	}
	// A voice cloned elsewhere with 1h30m left crosses an hour in 30 min:
	// a sooner timer replaces the one set for an hour.
	seedVoices(t, m, []testVoice{{id: "short_voice", ago: 166*time.Hour + 30*time.Minute}})
	send(m, historyChangedMsg{})
	wait := func(d time.Duration) { now = now.Add(d); fireDue(m) }
	wait(30 * time.Minute)
	if !strings.Contains(m.statusText, "short_voice") {
		t.Fatalf("no notice as short_voice crossed an hour left: %q", m.statusText)
	}
	wait(30 * time.Minute) // the replaced timer's time
	if n := reminderTimers(); n != 1 {
		t.Errorf("%d reminder timers wait for the next crossing, want 1", n)
	}
}

// The contact sheet's cursor stops at its edges: ↑ on the first row and →
// on the last cell stay where they are, and x then asks about that
// version (on the first row, ↑ must not leave it on no version at all).
func TestContactSheetCursorStopsAtItsEdges(t *testing.T) {
	m, _, _, _ := sheetModel(t, 80, 24, 6) // 4 versions a row: 1-4, 5-6
	asks := func(keys []string, want string) {
		t.Helper()
		for _, k := range keys {
			send(m, press(k))
		}
		send(m, press("x"))
		if !strings.Contains(screen(m), "Discard "+want+"?") {
			t.Errorf("%v then x: want a question about %s:\n%s", keys, want, screen(m))
		}
		send(m, press("n"))
	}
	asks([]string{"up"}, "version 1 (seed=1000)")
	asks([]string{"right", "right", "right", "right", "right", "right"}, "version 6 (seed=1005)")
}

// space on the keeper clears it: the set has no keeper, in history and on
// the sheet.
func TestContactSheetSpaceOnTheKeeperClearsIt(t *testing.T) {
	m, s, id, _ := sheetModel(t, 140, 40, 6)
	send(m, press("space"))
	if !strings.Contains(screen(m), "★ keeper") {
		t.Fatalf("space marked no keeper:\n%s", screen(m))
	}
	send(m, press("space"))
	info, err := s.Record().Set(context.Background(), id)
	if err != nil || info.Keeper != 0 {
		t.Errorf("the keeper in history after space twice: %d, %v", info.Keeper, err)
	}
	if scr := screen(m); strings.Contains(scr, "★ keeper") || !strings.Contains(scr, "no keeper in this set now") {
		t.Errorf("space on the keeper should clear it:\n%s", scr)
	}
}

// A task that finishes elsewhere is announced on the status line with its
// prompt cleaned: the prompt's escape sequences, carriage return and
// backspace never reach the terminal.
func TestAFinishedTasksHostilePromptIsAnnouncedCleaned(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	prompt := "a fox \x1b]0;pwned\x07\r\b\u009b2J in snow"
	seed(t, s, clk, append(standardTasks(), task{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"a fox \u001b]0;pwned\u0007\r\b\u009b2J in snow"}`,
		"811000000000000009", api.StateProcessing, 40, "", testNow.Add(-time.Hour), 0}))
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	send(m, finish(t, m, "811000000000000009", api.StateSuccess))
	if want := "t2v “" + api.CleanLine(prompt) + "” is done"; !strings.Contains(screen(m), want) {
		t.Errorf("the status line should say %q:\n%s", want, screen(m))
	}
	if r, bad := controlOutsideSGR(m.View().Content); bad {
		t.Errorf("control character %U reached the screen:\n%q", r, m.View().Content)
	}
}

// A task two days old reads "2d" in its row, past 48 hours; one that cost
// a credit reads "1 credit" in its detail.
func TestATwoDayOldOneCreditTask(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, []task{{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"an old cheap fox"}`,
		"811000000000000010", api.StateSuccess, 1, "", testNow.Add(-50 * time.Hour), 1}})
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	if row := lineWith(screen(m), "an old cheap fox"); !strings.Contains(row, " 2d ") {
		t.Errorf("a task 50 hours old: %q, want its age as 2d", row)
	}
	send(m, press("enter"))
	if scr := screen(m); !strings.Contains(scr, "·  1 credit  ·") {
		t.Errorf("the detail of a one-credit task:\n%s", scr)
	}
}

// ↑ on the first setting wraps to the last, as ↓ on the last wraps to the
// first: the screen is the one G shows.
func TestSettingsUpOnTheFirstRowWraps(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("6"))
	top := screen(m)
	send(m, press("G"))
	last := screen(m)
	if last == top {
		t.Fatalf("G moved nothing:\n%s", last)
	}
	send(m, press("g"))
	send(m, press("up"))
	if got := screen(m); got != last {
		t.Errorf("↑ on the first row, want the last row focused:\n%s\nwant:\n%s", got, last)
	}
	send(m, press("down"))
	if got := screen(m); got != top {
		t.Errorf("↓ on the last row, want the first focused:\n%s", got)
	}
}
