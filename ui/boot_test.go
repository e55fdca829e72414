package ui

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/studio"
)

// bootLines is what boot draws at w x h, line by line.
func bootLines(b *boot, w, h int) []string {
	b.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return strings.Split(ansi.Strip(b.View().Content), "\n")
}

// The first frame is the root's before it has read anything, less the
// rule under the tabs: the header, the Tasks tab lit, the list's columns;
// the root's own frame then only adds to it.
func TestBootDrawsTheRootsFrame(t *testing.T) {
	for _, w := range []int{80, 140} {
		s := newTestStudio(t, &clock{t: testNow})
		m := New(s, func() time.Time { return testNow }, nil)
		m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		root := strings.Split(screen(m), "\n")
		first := bootLines(newBoot(s.Config, newOpening()), w, 30)
		if len(first) != 4 || first[2] != "" {
			t.Fatalf("%d columns: boot drew %q", w, first)
		}
		for _, i := range []int{0, 1, 3} {
			if first[i] != root[i] {
				t.Errorf("%d columns, line %d:\nboot %q\nroot %q", w, i, first[i], root[i])
			}
		}
	}
}

// The root takes over with everything that came while the studio opened,
// in order: the terminal's size, keys typed early.
func TestBootHandsTheRootWhatCameMeanwhile(t *testing.T) {
	s := newTestStudio(t, &clock{t: testNow})
	m := New(s, func() time.Time { return testNow }, nil)
	start := newOpening()
	b := newBoot(s.Config, start)
	b.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	b.Update(press("2"))
	_, wait := b.Update(openDueMsg{})
	select {
	case <-start.due:
	default:
		t.Fatal("the studio was not told to open")
	}
	start.root = m
	close(start.done)
	next, cmd := b.Update(wait())
	if next != m {
		t.Fatalf("the program runs on %T, not the root", next)
	}
	timersOf(m)
	run(m, cmd)
	if m.width != 100 || m.active != pageNew {
		t.Errorf("the root is %dx%d on page %d; want 100x30 on the New page", m.width, m.height, m.active)
	}
	if got := screen(m); !strings.Contains(got, "1 Tasks") || len(m.pages[pageTasks].(*tasksPage).win.rows) != 0 {
		t.Errorf("the root's frame:\n%s", got)
	}
}

// q quits at once, before the studio opens: nothing is under way.
func TestBootQuits(t *testing.T) {
	b := newBoot(studio.Config{}, newOpening())
	if _, cmd := b.Update(press("q")); cmd == nil {
		t.Fatal("q did nothing")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q did not quit")
	}
}

// A studio that cannot open ends the program with its error, as before the
// screen took over; the screen is left as it was found.
func TestRunSaysWhyTheStudioDidNotOpen(t *testing.T) {
	dir := t.TempDir()
	// The history's place is taken by a folder: it cannot be opened.
	cfg := studio.Config{DataDir: dir, Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	if err := os.MkdirAll(filepath.Join(cfg.HistoryPath(), "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	err := runWith(ctx, cfg, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(100, 30))
	if err == nil || ctx.Err() != nil || strings.Contains(err.Error(), "terminal UI") {
		t.Errorf("runWith: %v (context: %v); want the history's error", err, ctx.Err())
	}
}

// A team history that accepts the connection and never answers: the frame
// says what it connects to (never the password) while it waits, and the
// program ends naming the URL and how to start on this machine's own
// history instead.
func TestBootSaysItConnectsToTheTeamHistory(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var held []net.Conn // accepted, never answered
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	url := "postgres://ann@" + ln.Addr().String() + "/studio?connect_timeout=1&sslmode=disable"
	cfg := studio.Config{DataDir: t.TempDir(), Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Theme: "dark",
		HistoryURL: strings.Replace(url, "ann@", "ann:s3cret@", 1)}
	b := newBoot(cfg, newOpening())
	bootLines(b, 80, 24)
	b.Update(openSlowMsg{})
	got := strings.Join(bootLines(b, 80, 24), "\n")
	if !regexp.MustCompile(`\n  Connecting to the team history \(q quits\) *\n  `+regexp.QuoteMeta(url)+` *$`).MatchString(got) || strings.Contains(got, "s3cret") {
		t.Errorf("while it connects:\n%s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	err = runWith(ctx, cfg, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24))
	if err == nil || !strings.Contains(err.Error(), url) || strings.Contains(err.Error(), "s3cret") ||
		!strings.HasSuffix(err.Error(), "\nto start on this machine's own history instead: clapper --history-url \"\"") {
		t.Errorf("runWith: %v", err)
	}
}
