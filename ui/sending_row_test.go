package ui

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api/sandbox"
	"clapper/studio"
)

// drawnWhole asks the program to draw its screen whole (the renderer
// otherwise writes a changed line from where it differs) until one
// drawing matches every pattern, each within one line of the screen.
func drawnWhole(tm *teatest.TestModel, patterns ...string) bool {
	res := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		res[i] = regexp.MustCompile(`(?m)` + p)
	}
	buf := make([]byte, 64<<10)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		var seen []byte
		tm.Send(tea.ClearScreen())
		for end := time.Now().Add(150 * time.Millisecond); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			n, _ := tm.Output().Read(buf)
			seen = append(seen, bytes.ReplaceAll(buf[:n], []byte("\r"), nil)...)
			all := true
			for _, re := range res {
				all = all && re.Match(seen)
			}
			if all {
				return true
			}
		}
	}
	return false
}

// A request the service has not answered yet is on the Tasks page at once,
// as being sent: the history records it before the POST, and the row
// showed only when the answer came (a slow service hid it for the whole
// request timeout).
func TestARequestBeingSentIsListedAtOnce(t *testing.T) {
	srv, err := sandbox.New(sandbox.Config{Seed: 3, Clock: sandbox.NewFakeClock(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	answer := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/ent/v2/text2video" {
			select { // the service holds the creation until the test lets it answer
			case <-answer:
			case <-r.Context().Done():
				return
			}
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(answer) }) // before ts.Close, which waits for the request
	cfg := studio.Config{DataDir: filepath.Join(t.TempDir(), "d"), BaseURL: ts.URL, APIKey: "k-1234567", Timeout: time.Minute,
		SandboxSpeed: 1, RequestBudget: 4, Theme: "dark"}
	s, err := studio.Open(context.Background(), cfg, studio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	tm := runningOn(t, New(s, func() time.Time { return testNow }, nil), 100, 30)
	// The program's relay (run.go): the studio's events and the history's
	// changes become messages.
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-s.Events():
				tm.Send(studioEventMsg{ev})
			case <-s.Changes():
				tm.Send(historyChangedMsg{})
			}
		}
	}()
	// New, text2video, its first model, a prompt; review; send.
	for _, k := range []string{"2", "down", "down", "enter", "enter"} {
		tm.Send(press(k))
	}
	waitScreen(t, tm, "ctrl+j new line")
	tm.Type("a held fox")
	tm.Send(ctrl('s'))
	waitScreen(t, tm, "enter send")
	tm.Send(press("enter"))
	waitScreen(t, tm, "sending…")
	tm.Send(press("1"))
	if !drawnWhole(tm, `a held fox.*sending`) {
		t.Fatal("the request being sent is not listed as sending on the Tasks page")
	}
	answer <- struct{}{}
	if !drawnWhole(tm, `a held fox.*(created|queued|processing)`) {
		t.Fatal("the task's row did not follow the service's answer")
	}
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
}
