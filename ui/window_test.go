package ui

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/history"
	"clapper/record"
)

// A history far larger than the window: the ends are reached with G and g,
// paging keeps at most windowCap rows in memory and the position counts
// right, and a task arriving on top leaves the cursor on its task.
func TestWindowPagesThroughALargeHistory(t *testing.T) {
	const n = 1500
	clk := &clock{t: testNow}
	dir := filepath.Join(testRoot, "window")
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.MkdirAll(dir, 0o700)
	if err := history.WriteFixture(filepath.Join(dir, "history.db"), n, testNow.AddDate(0, -1, 0), testNow.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	s := newTestStudioIn(t, clk, dir)
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	run(m, m.Init())
	p := m.pages[pageTasks].(*tasksPage)
	oldest, err := s.Record().Tasks(context.Background(), record.Filter{Reverse: true, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}

	send(m, press("G"))
	if sel, _ := p.win.selected(); sel.LocalID != oldest.Tasks[0].LocalID || p.win.position() != n-1 {
		t.Fatalf("G: at #%d position %d, want the oldest #%d at %d", sel.LocalID, p.win.position(), oldest.Tasks[0].LocalID, n-1)
	}
	for range 40 {
		send(m, press("pgup"))
		if len(p.win.rows) > windowCap+windowPage {
			t.Fatalf("the window holds %d rows", len(p.win.rows))
		}
	}
	sel, _ := p.win.selected()
	want, err := s.Record().Tasks(context.Background(), record.Filter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	pos := p.win.position()
	if pos >= len(want.Tasks) || want.Tasks[pos].LocalID != sel.LocalID {
		t.Fatalf("after paging up the row at position %d is #%d, history says otherwise", pos, sel.LocalID)
	}

	send(m, press("g"))
	send(m, press("down"))
	send(m, press("down"))
	kept, _ := p.win.selected()
	seed(t, s, clk, []task{{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"brand new"}`, "990000000000000001", api.StateQueueing, 40, "", testNow, 0}})
	send(m, historyChangedMsg{})
	now, _ := p.win.selected()
	if now.LocalID != kept.LocalID {
		t.Errorf("a new task moved the cursor from #%d to #%d", kept.LocalID, now.LocalID)
	}
	if p.win.rows[0].Prompt != "brand new" || p.win.total != n+1 {
		t.Errorf("the new task is not on top: %q, total %d", p.win.rows[0].Prompt, p.win.total)
	}
}
