package ui

import (
	"bytes"
	"context"
	"image/color"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
	"clapper/record"
)

// R on a contact sheet sends its failed version again (once) and its
// version never sent, after the usual review: which ones, the price, what
// was spent; the failed task stays in history and the new ones take the
// places on the sheet.
func TestSheetRetrySendsFailedAndUnsentOnce(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	id, locals := sheetSet(t, s, clk, 6) // versions 1-4 done, 5 processing, 6 never sent
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := s.Record().ApplyResult(ctx, "812000000000000005", record.Update{State: api.StateFailed, ErrCode: "InternalError"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	send(m, tea.BackgroundColorMsg{Color: color.Black})
	run(m, m.Init())
	send(m, openSheetMsg{setID: id})
	send(m, press("R"))
	scr := screen(m)
	for _, want := range []string{"Send 2 versions of set 1 again?", "Failed, sent again once: 5 (seed=1004)", "Never sent: 6 (seed=1005)", "Cost: 8 credits for all 2"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the review lacks %q:\n%s", want, scr)
		}
	}
	_, cmd := m.Update(press("y"))
	// The program's relay: each event of the studio becomes a message.
	var relay tea.Cmd
	relay = func() tea.Msg {
		select {
		case ev := <-s.Events():
			return tea.BatchMsg{func() tea.Msg { return studioEventMsg{ev} }, relay}
		case <-ctx.Done():
			return nil
		}
	}
	sent := func() bool {
		members, err := s.Record().SetMembers(ctx, id)
		return err == nil && members[4].LocalID != 0 && members[4].LocalID != locals[4] && members[5].LocalID != 0
	}
	if !runUntil(m, tea.Batch(cmd, relay), sent, 10*time.Second) {
		t.Fatalf("versions 5 and 6 were not sent again:\n%s", screen(m))
	}
	if old, err := s.Record().Task(ctx, locals[4]); err != nil || old.State != api.StateFailed {
		t.Fatalf("the failed task must stay in history: %+v %v", old.State, err)
	}
	retry, err := s.RetryRequests(ctx, id)
	if err == nil && len(retry.Requests()) != 0 {
		t.Fatalf("sent again, nothing is left to send: %+v", retry)
	}
}

// In a running program: x discards a version after asking, and the
// question says a running one still bills; the title counts the discarded
// apart (a set of six reads whole); u brings back the one discarded last
// (not the last line), in history too, and the cursor lands on it.
func TestSheetDiscardSaysTheCostAndUndoesInARunningProgram(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	id, _ := sheetSet(t, s, clk, 6) // versions 1-4 done, 5 processing (4 credits), 6 never sent
	m := New(s, func() time.Time { return testNow }, nil)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Send(tea.BackgroundColorMsg{Color: color.Black})
	// WaitFor reads the output as it goes: each wait looks for what one
	// frame shows.
	wait := func(what ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, w := range what {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(5*time.Second))
	}
	tm.Send(press("C"))
	wait("reference2image, 6 versions")
	tm.Send(press("enter"))
	wait("version 6", "never sent")
	discard := func(name string) {
		t.Helper()
		tm.Send(press("x")) // the question opens by a command: y waits for it
		wait("Discard " + name + "?")
		tm.Send(press("y"))
	}
	for _, k := range []string{"right", "right", "right", "right", "x"} { // version 5
		tm.Send(press(k))
	}
	wait("Discard version 5 (seed=1004)?", "does not stop it", "4 credits are")
	for _, k := range []string{"n", "g", "right"} { // version 2
		tm.Send(press(k))
	}
	discard("version 2 (seed=1001)")
	wait("1 discarded")
	tm.Send(press("left"))
	discard("version 1 (seed=1000)")
	// "3 done" was: the renderer draws the line from where it differs.
	wait("2 done")
	tm.Send(press("u"))
	wait("is back on the sheet")
	// The status line comes before the sheet's new read, and the renderer
	// draws a changed line from where it differs, so a read drawn may never
	// show whole: a cleared screen is drawn whole, asked for until it holds
	// version 1's cell and the new count.
	redrawn := func(what ...string) bool {
		var seen []byte
		buf := make([]byte, 64<<10)
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
			tm.Send(tea.ClearScreen())
			for end := time.Now().Add(150 * time.Millisecond); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				n, _ := tm.Output().Read(buf)
				seen = append(seen, buf[:n]...)
				if !slices.ContainsFunc(what, func(w string) bool { return !bytes.Contains(seen, []byte(w)) }) {
					return true
				}
			}
			seen = seen[:0]
		}
		return false
	}
	if !redrawn("seed 1000", "3 done", "1 discarded") {
		t.Fatal("the sheet's new read was never drawn after u")
	}
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	fm := tm.FinalModel(t).(*Model)
	if c := fm.sheet(); c == nil || len(c.cells) != 5 || len(c.discarded) != 1 || c.discarded[0].line != 2 || c.current().line != 1 ||
		!strings.Contains(screen(fm), "version 1 (seed=1000) is back on the sheet") {
		t.Fatalf("u must bring back version 1, discarded last, the cursor on it: %+v\n%s", c, screen(fm))
	}
	members, err := s.Record().SetMembers(context.Background(), id)
	if err != nil || members[0].Discarded || !members[1].Discarded {
		t.Fatalf("history: version 1 is back, version 2 still discarded: %+v %v", members, err)
	}
}
