package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"clapper/studio"

	tea "charm.land/bubbletea/v2"
)

// goroutinesOf counts the other goroutines whose stacks hold one of the
// studio's parts (its watcher, downloader, store or itself) as an argument.
func goroutinesOf(s *studio.Studio) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	marks := []string{fmt.Sprintf("%p", s), fmt.Sprintf("%p", s.Record())}
	n := 0
	// The first stack is the caller's own, which holds s as an argument.
	for _, g := range strings.Split(string(buf), "\n\n")[1:] {
		for _, mk := range marks {
			if strings.Contains(g, mk) {
				n++
				break
			}
		}
	}
	return n
}

// A backend switch cancels the old backend's context and closes it in a
// command: none of its goroutines survives; quitting cancels the context
// of the backend in use.
func TestBackendSwitchLeavesNothingOfTheOld(t *testing.T) {
	clk := &clock{t: testNow}
	old := newTestStudio(t, clk)
	if err := old.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := New(old, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	run(m, m.Init())
	// Start's goroutines take a moment to be scheduled and show their
	// arguments.
	for deadline := time.Now().Add(5 * time.Second); goroutinesOf(old) == 0; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatal("no goroutine of the running backend found: the count cannot tell")
		}
	}
	oldCtx := m.env.ctx

	next := newTestStudioIn(t, clk, filepath.Join(testRoot, "switched"))
	if err := next.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	send(m, studioOpenedMsg{s: next})
	if oldCtx.Err() == nil {
		t.Error("the old backend's context was not cancelled")
	}
	if n := goroutinesOf(old); n != 0 {
		t.Errorf("%d goroutines of the old backend survive the switch", n)
	}
	if m.env.studio != next {
		t.Error("the new backend is not the one in use")
	}

	ctx := m.env.ctx
	send(m, press("q"))
	if ctx.Err() == nil {
		t.Error("quitting did not cancel the backend's context")
	}
}
