package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
	"clapper/record"
)

// heldCounts holds the History page's counts (TotalsMatching's statement)
// in the history's driver until released, and tells when each one starts
// and how it ends.
type heldCounts struct {
	release chan struct{}
	started chan struct{}
	ended   chan error // nil: released; else its context's error
}

func holdCounts(t *testing.T) *heldCounts {
	h := &heldCounts{release: make(chan struct{}), started: make(chan struct{}, 64), ended: make(chan error, 64)}
	gate := func(ctx context.Context, q string) error {
		if !strings.Contains(q, "WITH matches AS") {
			return nil
		}
		h.started <- struct{}{}
		select {
		case <-h.release:
			h.ended <- nil
			return nil
		case <-ctx.Done():
			h.ended <- ctx.Err()
			return ctx.Err()
		}
	}
	useCountingDriver = true
	queryGate.Store(&gate)
	t.Cleanup(func() {
		useCountingDriver = false
		queryGate.Store(nil)
	})
	return h
}

// On the History screen a search's rows come as soon as they are read,
// whatever its count costs (a broad word at a million tasks counts for
// half a second): the totals line says "counting…" until the count ends.
// A key typed meanwhile cancels that count, its context reaching the
// query, and the search typed counts anew.
func TestHistoryRowsComeFirstAndTotalsFollow(t *testing.T) {
	h := holdCounts(t)
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	// Thirty newer tasks put the fox below the screen: its row shows only
	// once the search has found it.
	tasks := standardTasks()
	for i := range 30 {
		tasks = append(tasks, task{api.OpText2Video, "svcq1", fmt.Sprintf(`{"model":"svcq1","prompt":"a plain kite, take %d","duration":5}`, i),
			fmt.Sprintf("8120000000000000%02d", i), api.StateSuccess, 1, "", testNow.Add(-time.Duration(30+i) * time.Minute), 0})
	}
	seed(t, s, clk, tasks)
	m := New(s, func() time.Time { return testNow }, nil)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Send(tea.BackgroundColorMsg{Color: color.Black})
	wait := func(what ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, w := range what {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(hangGuard))
	}
	wait("a plain kite, take 0")
	tm.Send(press("5"))
	wait("37 tasks") // the totals of every task, which no search holds up
	tm.Send(press("/"))
	tm.Type("fo")
	wait("a red fox", "counting…")
	select {
	case <-h.started:
	case <-time.After(hangGuard):
		t.Fatal("the search's count never reached the history")
	}
	select {
	case err := <-h.ended:
		t.Fatalf("the count ended (%v) before anything let it", err)
	default:
	}
	tm.Type("x")
	select {
	case err := <-h.ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the count of the search typed over ended with %v, want it cancelled", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("a key typed did not cancel the count of the search before it")
	}
	close(h.release)
	wait("1 task", "1 success", "40 credits spent on these")
	tm.Send(press("esc"))
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
}

// "counting…" shows only once a search's count outlasts countingGrace,
// and until it ends: a quicker count changes the totals line once, from
// the figures before to its own, with no flash between.
func TestHistoryCountingWordOnlyAfterTheGrace(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("5"))
	p := m.pages[pageHistory].(*historyPage)
	for _, slow := range []bool{false, true} {
		before := screen(m)
		p.query = record.Filter{Text: "fox"}
		cmds := p.loadFigures(true)().(tea.BatchMsg) // the count, and its grace's timer
		count, grace := cmds[0], unowned(cmds[1]()).(timerSetMsg).timer.msg.(historyCountingMsg)
		if s := screen(m); s != before {
			t.Fatalf("the screen changed before the grace passed:\n%s\nwas:\n%s", s, before)
		}
		if slow {
			p.Update(grace)
			if s := screen(m); !strings.Contains(s, "counting…") {
				t.Fatalf("a count past its grace must say so:\n%s", s)
			}
		}
		p.Update(unowned(count()))
		p.Update(grace) // a quick count's grace passes after its answer
		if s := screen(m); strings.Contains(s, "counting") || !strings.Contains(s, "40 credits spent on these") {
			t.Fatalf("slow %v: the count's figures, and no counting:\n%s", slow, s)
		}
	}
}

// A change in the history while a count runs lets that count end (its
// figures are shown) and counts once more after recountPause, however many
// changes came: at a million tasks a broad search counts for half a
// second, and restarting it on every change would never end.
func TestHistoryChangeWhileCountingRecountsOnceAfter(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("5"))
	p := m.pages[pageHistory].(*historyPage)
	p.query = record.Filter{Text: "fox"}
	count := p.loadFigures(true)
	seq := p.counting.seq
	for range 3 {
		if cmd := p.refreshFigures(); cmd != nil {
			if _, started := unowned(cmd()).(tea.BatchMsg); started {
				t.Fatal("a change restarted the running count")
			}
		}
	}
	if p.counting.seq != seq || !p.recount {
		t.Fatalf("count %d of %d, recount %v: a change must wait for the running count", p.counting.seq, seq, p.recount)
	}
	run(m, count)
	if p.totals.counts[api.StateSuccess] != 1 {
		t.Fatalf("the running count's figures were not shown: %+v", p.totals)
	}
	var again historyRecountMsg
	for _, pt := range timersOf(m).pending {
		if r, ok := unowned(pt.msg).(historyRecountMsg); ok {
			again = r
		}
	}
	if again.seq != seq {
		t.Fatalf("no recount after the count that changes overtook: %+v", again)
	}
	send(m, again)
	if p.counting.seq != seq+1 || p.counting.running || p.recount {
		t.Fatalf("count %d (running %v, recount %v): want one more, done", p.counting.seq, p.counting.running, p.recount)
	}
}

// A key that edits the search stops the count of the search shown at
// once, not when typing pauses: the core it holds is the next search's.
func TestHistoryKeyStopsTheCountAtOnce(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("5"))
	send(m, press("/"))
	p := m.pages[pageHistory].(*historyPage)
	p.query = record.Filter{Text: "fox"}
	count := p.loadFigures(true)
	typeText(m, "f")
	msg, ok := unowned(count().(tea.BatchMsg)[0]()).(historyTotalsMsg)
	if !ok || !errors.Is(msg.err, context.Canceled) {
		t.Fatalf("the count went on after a key edited the search: %+v", msg)
	}
}

// A search's totals and its charts are one read of its matches (issue 34,
// item 4): the charts read in a second pass cost a broad search half again
// its time and memory.
func TestHistorySearchFiguresAreOneRead(t *testing.T) {
	var (
		mu      sync.Mutex
		figures []string // the statements that group tasks to count or sum them
	)
	gate := func(_ context.Context, q string) error {
		if strings.Contains(q, "GROUP BY") || strings.Contains(q, "clapper_tally") {
			mu.Lock()
			figures = append(figures, q)
			mu.Unlock()
		}
		return nil
	}
	useCountingDriver = true
	queryGate.Store(&gate)
	t.Cleanup(func() {
		useCountingDriver = false
		queryGate.Store(nil)
	})
	m, _ := newTestModel(t, 140, 40)
	send(m, press("5"))
	mu.Lock()
	figures = nil
	mu.Unlock()
	historySearch(t, m, "fox")
	mu.Lock()
	defer mu.Unlock()
	if len(figures) != 1 {
		t.Errorf("the search's figures took %d reads, want 1:\n%s", len(figures), strings.Join(figures, "\n\n"))
	}
	charts := screen(m)
	if i := strings.Index(charts, "Credits by model · of these tasks"); i < 0 || !strings.Contains(charts[i:], "svcq1") || strings.Contains(charts[i:], "svcq3-pro") {
		t.Errorf("the charts are not of the matches:\n%s", charts)
	}
}
