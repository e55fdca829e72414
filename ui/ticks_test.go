package ui

import (
	"context"
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/studio"
)

// clockModel is the Tasks page at 120x30 on the seeded tasks, its screens
// on clk, which the test moves.
func clockModel(t *testing.T, tasks []task) (*Model, *studio.Studio, *clock) {
	t.Helper()
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, tasks)
	clk.t = testNow
	m := New(s, clk.now, nil)
	send(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	return m, s, clk
}

// A task sent while only old tasks are listed (their ages move by the
// minute) turns its spinner and counts its age at once: the minute's timer
// gives way to the spinner's (issue 18, item 2).
func TestSpinnerMovesWhileAMinuteTickIsPending(t *testing.T) {
	m, s, clk := clockModel(t, []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"an old fox"}`, "811000000000000001", api.StateSuccess, 40, "", testNow.Add(-10 * time.Minute), 1},
	})
	send(m, tea.KeyPressMsg{Code: 'x', Text: "x"}) // any key: the timer for the old row's age is set
	if f := timersOf(m); len(f.pending) == 0 {
		t.Fatal("no timer for the age of the old row")
	}
	ids := seed(t, s, clk, []task{{api.OpText2Video, "svcq3-turbo", `{"model":"svcq3-turbo","prompt":"the fresh one"}`, "811000000000000002", api.StateProcessing, 40, "", testNow, 0}})
	clk.t = testNow
	send(m, createdMsg{localID: ids[0]})
	first := lineWith(screen(m), "the fresh one")
	if first == "" {
		t.Fatalf("the new task is not listed:\n%s", screen(m))
	}
	advance(m, clk, spinnerStep)
	if next := lineWith(screen(m), "the fresh one"); next == first {
		t.Errorf("the spinner did not move in %s:\n%s\n%s", spinnerStep, first, next)
	}
	for range time.Second/spinnerStep - 1 {
		advance(m, clk, spinnerStep)
	}
	if row := lineWith(screen(m), "the fresh one"); !strings.Contains(row, "1s") {
		t.Errorf("the age did not count after a second: %q", row)
	}
}

// A queued task waits and nothing about it changes: its clock hand moves
// once a second, so a screen whose only task in flight is queued is drawn
// once a second, not at the spinner's pace (issue 17, idle with 5 queued);
// its detail, which counts how long it has run, too.
func TestQueuedTaskMovesOnceASecond(t *testing.T) {
	m, _, clk := clockModel(t, []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"waiting for the night"}`, "811000000000000003", api.StateQueueing, 40, "", testNow.Add(-10 * time.Minute), 0},
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"an old fox"}`, "811000000000000001", api.StateSuccess, 40, "", testNow.Add(-2 * time.Hour), 1},
	})
	for _, page := range []string{"tasks", "detail"} {
		if page == "detail" {
			send(m, press("enter"))
			if m.detail() == nil {
				t.Fatalf("enter opened no detail:\n%s", screen(m))
			}
		}
		advance(m, clk, time.Second) // the timers set before fire
		row, frame := lineWith(screen(m), "waiting for the night"), m.env.frame
		if page == "tasks" && !strings.ContainsAny(row, strings.Join(queuedFrames, "")) {
			t.Fatalf("the queued row shows no clock hand: %q", row)
		}
		for range 7 {
			advance(m, clk, 120*time.Millisecond)
		}
		if m.env.frame != frame {
			t.Errorf("%s: %d redraws in 840 ms with only a queued task in flight", page, m.env.frame-frame)
		}
		advance(m, clk, 200*time.Millisecond)
		if m.env.frame != frame+1 {
			t.Errorf("%s: %d redraws in the next second, want 1", page, m.env.frame-frame)
		}
		if page == "tasks" && lineWith(screen(m), "waiting for the night") == row {
			t.Errorf("the clock hand did not move in a second: %q", row)
		}
	}
}

// An off-peak task waits for quiet hours, up to two days: its clock hand
// stands still, so a list whose only task in flight waits off-peak is drawn
// as its ages change (by the minute here), not every second for hours
// (issue 17, idle with 5 queued).
func TestOffPeakQueuedTaskStandsStill(t *testing.T) {
	m, _, clk := clockModel(t, []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"waiting for the night","off_peak":true}`, "811000000000000003", api.StateQueueing, 20, "", testNow.Add(-10 * time.Minute), 0},
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"an old fox"}`, "811000000000000001", api.StateSuccess, 40, "", testNow.Add(-2 * time.Hour), 1},
	})
	advance(m, clk, time.Minute) // the timers set before fire
	row, frame := lineWith(screen(m), "waiting for the night"), m.env.frame
	if !strings.Contains(row, offPeakGlyph) || !strings.Contains(row, "queueing") {
		t.Fatalf("the off-peak row: %q, want a still hand %s and its state", row, offPeakGlyph)
	}
	advance(m, clk, 59*time.Second)
	if m.env.frame != frame || lineWith(screen(m), "waiting for the night") != row {
		t.Errorf("%d redraws in 59 s with only an off-peak task waiting; the row moved: %v", m.env.frame-frame, lineWith(screen(m), "waiting for the night") != row)
	}
	// Its detail says the same with the same hand.
	send(m, press("enter"))
	if m.detail() == nil {
		t.Fatalf("enter opened no detail:\n%s", screen(m))
	}
	if got := screen(m); !strings.Contains(got, offPeakGlyph+" queueing") {
		t.Errorf("the off-peak task's detail, want %s queueing:\n%s", offPeakGlyph, got)
	}
}

// Past an hour a task's running time and age show minutes: its detail
// redraws once a minute (an off-peak task may wait two days).
func TestLongQueuedTaskDetailRedrawsByTheMinute(t *testing.T) {
	m, _, clk := clockModel(t, []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"waiting for the night"}`, "811000000000000003", api.StateQueueing, 40, "", testNow.Add(-2 * time.Hour), 0},
	})
	send(m, press("enter"))
	if m.detail() == nil {
		t.Fatalf("enter opened no detail:\n%s", screen(m))
	}
	advance(m, clk, time.Minute) // the timers set before fire
	frame, shown := m.env.frame, screen(m)
	advance(m, clk, 59*time.Second)
	if m.env.frame != frame {
		t.Errorf("%d redraws in 59 s of a task queued for two hours", m.env.frame-frame)
	}
	advance(m, clk, time.Second)
	if m.env.frame != frame+1 || screen(m) == shown {
		t.Errorf("%d redraws as the minute turned; the screen moved: %v", m.env.frame-frame, screen(m) != shown)
	}
}

// A request that passes the grace while the page is open is pinned as of
// unknown outcome, and a and x work on it at once, with nothing else
// happening (issue 19, item 3): also when no spinner turns on screen (the
// list filtered to finished tasks), since a timer waits for the grace.
func TestPinnedListFollowsAgeingRequests(t *testing.T) {
	for _, filter := range []string{"", "ss"} {
		t.Run("filter="+filter, func(t *testing.T) {
			m, _, clk := clockModel(t, []task{
				{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"an old fox"}`, "811000000000000001", api.StateSuccess, 40, "", testNow.Add(-3 * time.Hour), 1},
				{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"lost in the post"}`, "", "", 0, "", testNow.Add(-studio.IntentStale + 10*time.Second), 0},
			})
			typeText(m, filter)
			tp := m.pages[pageTasks].(*tasksPage)
			if strings.Contains(screen(m), "unknown outcome") || len(tp.unknown()) != 0 {
				t.Fatalf("a request within the grace is pinned:\n%s", screen(m))
			}
			advance(m, clk, time.Second) // the timers set before the filter fire
			frame := m.env.frame
			advance(m, clk, 10*time.Second)
			if m.env.frame == frame {
				t.Fatal("no timer fired by the grace: the program would not redraw")
			}
			if !strings.Contains(screen(m), "1 request of unknown outcome") {
				t.Fatalf("the request past the grace is not pinned:\n%s", screen(m))
			}
			send(m, press("up"))
			if !tp.KeyMap().Attach.Enabled() {
				t.Fatal("a is not offered on the pinned request")
			}
			send(m, press("a"))
			if m.dialog() == nil || !strings.Contains(screen(m), "Attach a task id") {
				t.Fatalf("a did nothing on the pinned request:\n%s", screen(m))
			}
		})
	}
}

// Trust round two: a and x work on a request of unknown outcome from its
// row in the list as well as from its pinned copy (the cursor starts in
// the list, on that row when it is the newest).
func TestUnknownRequestIsAttachedFromItsListRow(t *testing.T) {
	m, _, _ := clockModel(t, []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"an old fox"}`, "811000000000000001", api.StateSuccess, 40, "", testNow.Add(-3 * time.Hour), 1},
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"lost in the post"}`, "", "", 0, "", testNow.Add(-time.Hour), 0},
	})
	tp := m.pages[pageTasks].(*tasksPage)
	if len(tp.unknown()) != 1 {
		t.Fatalf("not pinned:\n%s", screen(m))
	}
	row, ok := tp.win.selected()
	if tp.pinned >= 0 || !ok || row.Prompt != "lost in the post" {
		t.Fatalf("the cursor starts on %+v (pinned %d)", row, tp.pinned)
	}
	send(m, press("a"))
	if m.dialog() == nil || !strings.Contains(screen(m), "Attach a task id to request #2") {
		t.Fatalf("a did nothing on the list's copy of the request:\n%s", screen(m))
	}
	send(m, press("esc"))
	send(m, press("down")) // the finished task: nothing to attach
	if tp.KeyMap().Attach.Enabled() {
		t.Error("a is offered on a finished task")
	}
}

// Working out when the screen next moves (at every message) leaves the
// page's rows alone: the row below the screen was written over by the
// request of unknown outcome pinned above the list (an append to the rows
// on screen), and scrolling down showed that request twice.
func TestTickEveryKeepsTheRowsBelowTheScreen(t *testing.T) {
	var tasks []task
	for i := range 40 {
		tasks = append(tasks, task{api.OpText2Video, "svcq1", fmt.Sprintf(`{"model":"svcq1","prompt":"fox %d"}`, i),
			fmt.Sprintf("8110000000000001%02d", i), api.StateSuccess, 40, "", testNow.Add(-time.Duration(i+2) * time.Hour), 1})
	}
	tasks = append(tasks, task{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"lost in the post"}`, "", "", 0, "", testNow.Add(-time.Hour), 0})
	m, _, _ := clockModel(t, tasks)
	tp := m.pages[pageTasks].(*tasksPage)
	if len(tp.unknown()) != 1 || len(tp.win.rows) <= len(tp.visible()) {
		t.Fatalf("%d pinned, %d rows for %d on screen", len(tp.unknown()), len(tp.win.rows), len(tp.visible()))
	}
	tp.tickEvery() // as every message does
	seen := map[int64]bool{}
	for i, r := range tp.win.rows {
		if seen[r.LocalID] {
			t.Errorf("row %d: #%d (%q) twice in the list", i, r.LocalID, r.Prompt)
		}
		seen[r.LocalID] = true
	}
}

// A request of unknown outcome attached to the task the service made of
// it leaves the pinned list at once, its row showing the task: no later
// change of the task has to come first.
func TestAttachedRequestLeavesThePinnedListAtOnce(t *testing.T) {
	m, s, _ := clockModel(t, []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"lost in the post"}`, "", "", 0, "", testNow.Add(-time.Hour), 0},
	})
	made, err := s.Service().Create(context.Background(), api.OpText2Video, map[string]any{"model": "svcq1", "prompt": "lost in the post"})
	if err != nil {
		t.Fatal(err)
	}
	tp := m.pages[pageTasks].(*tasksPage)
	if len(tp.unknown()) != 1 {
		t.Fatalf("not pinned:\n%s", screen(m))
	}
	send(m, press("a"))
	for _, r := range made.TaskID {
		send(m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	send(m, press("enter"))
	if got := screen(m); len(tp.unknown()) != 0 || !strings.Contains(got, made.TaskID) {
		t.Errorf("after attaching %s:\n%s", made.TaskID, got)
	}
}
