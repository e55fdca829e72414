package ui

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// At start only what the first frame shows is read: the History and
// Scenes lists wait until their page is shown, and then are there.
func TestHiddenListsReadWhenShown(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	h := m.pages[pageHistory].(*historyPage)
	if len(h.win.rows) != 0 || m.stale[pageHistory] != rereadAll || m.stale[pageScenes] != rereadAll {
		t.Fatalf("read at start: %d history rows; stale %v", len(h.win.rows), m.stale)
	}
	if len(m.pages[pageTasks].(*tasksPage).win.rows) == 0 {
		t.Fatal("the Tasks page has no rows")
	}
	send(m, press("5"))
	if len(h.win.rows) == 0 || m.stale[pageHistory] != rereadNone {
		t.Errorf("the History page shown has %d rows", len(h.win.rows))
	}
}

// The first frame waits for one read, the Tasks list's page: the hidden
// pages' reads (voices, drafts) and the studio's start (loading what is in
// flight, the watcher) begin once the frame with its rows is drawn, a frame
// later; on two busy cores they compete neither with the read nor with
// drawing it.
func TestHiddenPagesReadAfterTheFirstRows(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, standardTasks())
	now := testNow
	m := New(s, func() time.Time { return now }, nil)
	starts := 0
	m.start = func() error { starts++; return nil }
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	timers := timersOf(m)
	// reads runs cmd and what it batches, and names the data each returns
	// without handing it to the model; timers set are filed.
	reads := func(cmd tea.Cmd) (names []string, rows tea.Msg) {
		for queue := []tea.Cmd{cmd}; len(queue) > 0; queue = queue[1:] {
			if queue[0] == nil || isBlink(queue[0]) {
				continue
			}
			switch msg := unowned(queue[0]()).(type) {
			case tea.BatchMsg:
				queue = append(queue, msg...)
			case timerSetMsg:
				timers.pending = append(timers.pending, msg.timer)
			case windowLoadedMsg:
				names, rows = append(names, "rows"), msg
			case voicesLoadedMsg:
				names = append(names, "voices")
			case draftsFoundMsg:
				names = append(names, "drafts")
			}
		}
		return names, rows
	}
	first, rows := reads(m.Init())
	if !slices.Equal(first, []string{"rows"}) || starts != 0 {
		t.Fatalf("reads at start: %v, %d studio starts; want only the Tasks rows", first, starts)
	}
	_, next := m.Update(rows)
	if then, _ := reads(next); len(then) != 0 || starts != 0 {
		t.Fatalf("reads once the rows are there: %v, %d studio starts; want none before their frame", then, starts)
	}
	var drawn tea.Msg
	for _, p := range timers.pending {
		if msg, ok := p.msg.(rowsDrawnMsg); ok && p.due.Equal(now.Add(frameInterval)) {
			drawn = msg
		}
	}
	if drawn == nil {
		t.Fatalf("no timer for the frame with the rows: %+v", timers.pending)
	}
	_, next = m.Update(drawn)
	if then, _ := reads(next); !slices.Contains(then, "voices") || !slices.Contains(then, "drafts") || starts != 1 {
		t.Errorf("reads a frame after the rows: %v, %d studio starts; want voices, drafts and the start", then, starts)
	}
}

// The first frame's reads begin before the program starts and run one at
// a time, in order (each would otherwise open a history connection and read
// the schema), while each message is handed on as its own: the program runs
// a batch's commands at once, and gets every message.
func TestEarlyReadsRunInTurn(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	active, most := 0, 0
	read := func(name string) tea.Cmd {
		return func() tea.Msg {
			mu.Lock()
			active++
			most = max(most, active)
			ran = append(ran, name)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			active--
			mu.Unlock()
			return name
		}
	}
	cmd := early(tea.Batch(tea.Batch(read("rows"), read("unknown")), read("stats")))
	// As Bubble Tea does: a batch's commands each in a goroutine of its own.
	msgs := make(chan tea.Msg, 8)
	var wg sync.WaitGroup
	var exec func(tea.Cmd)
	exec = func(c tea.Cmd) {
		defer wg.Done()
		msg := c()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				wg.Add(1)
				go exec(c)
			}
			return
		}
		msgs <- msg
	}
	wg.Add(1)
	exec(cmd)
	wg.Wait()
	close(msgs)
	var got []string
	for msg := range msgs {
		got = append(got, msg.(string))
	}
	slices.Sort(got)
	if !slices.Equal(ran, []string{"rows", "unknown", "stats"}) || most != 1 || !slices.Equal(got, []string{"rows", "stats", "unknown"}) {
		t.Errorf("ran %v, at most %d at once, messages %v; want rows, unknown, stats one at a time, and each message", ran, most, got)
	}
}

// Read early, the first frame has what it would have read in Init: the
// rows and the header's counts.
func TestReadEarlyFillsTheFirstFrame(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, standardTasks())
	m := New(s, func() time.Time { return testNow }, nil)
	m.readEarly()
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	run(m, m.Init())
	flushFrame(m)
	if rows := len(m.pages[pageTasks].(*tasksPage).win.rows); rows == 0 || !m.statsLoaded {
		t.Fatalf("after the early reads: %d rows, header counts read %v", rows, m.statsLoaded)
	}
	if got := screen(m); !strings.Contains(got, "running") {
		t.Errorf("the first frame has no counts:\n%s", got)
	}
}
