package ui

import (
	"context"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

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
