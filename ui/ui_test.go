package ui

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// Every page, the help and the detail, at the smallest common terminal and
// a wide one.
func TestScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			steps := []struct {
				name string
				keys []string
			}{
				{"tasks", nil},
				{"new", []string{"2"}},
				{"scenes", []string{"3"}},
				{"voices", []string{"4"}},
				{"history", []string{"5"}},
				{"settings", []string{"6"}},
				{"help", []string{"?"}},
				{"detail_success", []string{"G", "enter"}},
				{"detail_failed", []string{"G", "up", "up", "enter"}},
				{"detail_image", []string{"G", "up", "enter"}},
				{"tasks_filtered", []string{"/", "f", "o", "x", "enter"}},
			}
			for _, st := range steps {
				t.Run(st.name, func(t *testing.T) {
					m, _ := newTestModel(t, size.w, size.h)
					for _, k := range st.keys {
						send(m, press(k))
					}
					snapshot(t, m)
				})
			}
		})
	}
}

// A first run on an empty history says it is on the sandbox and how to go
// live.
func TestFirstRunSaysSandbox(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(m, m.Init())
	got := screen(m)
	for _, want := range []string{"SANDBOX", "No tasks yet", "results are simulated", "CLAPPER_API_KEY", "Settings page (6)"} {
		if !strings.Contains(got, want) {
			t.Errorf("first screen lacks %q:\n%s", want, got)
		}
	}
	snapshot(t, m)
}

// A task goes queueing -> processing -> success as the watcher reports:
// its row, the header's counts and its open detail follow, and the cursor
// stays on it.
func TestLiveUpdateFlow(t *testing.T) {
	clk := &clock{t: testNow.Add(-time.Minute)}
	s := newTestStudio(t, clk)
	ids := seed(t, s, clk, []task{
		{api.OpText2Video, "svcq1", `{"model":"svcq1","prompt":"older task"}`, "900000000000000001", api.StateSuccess, 40, "", testNow.Add(-time.Hour), 1},
		{api.OpText2Video, "svcq3-turbo", `{"model":"svcq3-turbo","prompt":"the live one"}`, "900000000000000002", api.StateQueueing, 40, "", testNow.Add(-time.Minute), 0},
	})
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	run(m, m.Init())
	if got := screen(m); !strings.Contains(got, "1 queued") || !strings.Contains(got, "queueing") {
		t.Fatalf("start:\n%s", got)
	}
	send(m, press("enter")) // the detail of the live task (newest, selected)
	report := func(state string, progress *int64, urls int) {
		t.Helper()
		u := record.Update{State: state, Credits: 40, Progress: progress}
		for i := range urls {
			u.Creations = append(u.Creations, record.Creation{Index: i, URL: "https://cdn.example.com/live.mp4", URLExpiresAt: testNow.Add(24 * time.Hour)})
		}
		if _, err := s.Record().ApplyResult(context.Background(), "900000000000000002", u); err != nil {
			t.Fatal(err)
		}
		send(m, studioEventMsg{track.Event{Kind: track.EventState, TaskID: "900000000000000002", Operation: api.OpText2Video, To: state}})
	}
	p := int64(55)
	report(api.StateProcessing, &p, 0)
	if got := screen(m); !strings.Contains(got, "processing 55%") || !strings.Contains(got, "1 running") {
		t.Fatalf("processing: detail and header should show it:\n%s", got)
	}
	report(api.StateSuccess, nil, 1)
	got := screen(m)
	for _, want := range []string{"✓ success", "0 running", "URL valid for 24h00m", "https://cdn.example.com/live.mp4"} {
		if !strings.Contains(got, want) {
			t.Errorf("success: detail lacks %q:\n%s", want, got)
		}
	}
	send(m, press("esc"))
	tp := m.pages[pageTasks].(*tasksPage)
	sel, _ := tp.win.selected()
	if sel.LocalID != ids[1] || sel.State != api.StateSuccess {
		t.Errorf("the cursor left its task or the row is stale: %+v", sel)
	}
}

// Nothing from the server or a file reaches the terminal as a control
// sequence: prompts, error codes, ids, models and rejection messages.
func TestServerTextCannotControlTheTerminal(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	evil := "E\x1b[2J\x1b]52;c;aGVsbG8=\x07\u009b31m\r\bX"
	seed(t, s, clk, []task{
		{api.OpText2Video, "svcq1\x1b[5m", `{"model":"svcq1","prompt":"fox \u001b]0;pwned\u0007 in \u009b2J snow"}`, "77\x1b[31m", api.StateFailed, 1, evil, testNow.Add(-time.Minute), 1},
		{api.OpTiming2Audio, "audio1.0", `{"model":"audio1.0","duration":3}`, "", record.StateRejected, 0, "", testNow.Add(-30 * time.Second), 0},
	})
	m := New(s, func() time.Time { return testNow }, nil)
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	run(m, m.Init())
	check := func(where string) {
		t.Helper()
		if r, bad := controlOutsideSGR(m.View().Content); bad {
			t.Errorf("%s: control character %U reached the screen:\n%q", where, r, m.View().Content)
		}
	}
	check("task list")
	for _, k := range []string{"G", "enter"} {
		send(m, press(k))
	}
	check("detail of the hostile task")
	if !strings.Contains(screen(m), "E[2J]52;c;aGVsbG8=") && !strings.Contains(screen(m), "E") {
		t.Errorf("the error code should still be shown, cleaned:\n%s", screen(m))
	}
	send(m, press("esc"))
	send(m, press("up"))
	send(m, press("enter"))
	check("detail of the rejection")
	send(m, press("esc"))
	send(m, press("5"))
	check("history page")
}

// Keys typed into a text field are text: `q` in the filter does not quit,
// tab and digits do not switch pages; esc leaves the field and q quits.
func TestTypedKeysGoToTheFocusedInput(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	m.env.timers = realTimers{} // the filter searches when typing pauses, in a running program
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Send(tea.BackgroundColorMsg{Color: color.Black})
	tm.Send(press("/"))
	tm.Type("q2?n")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("No task matches"))
	}, teatest.WithDuration(hangGuard))
	tm.Send(press("esc"))
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	final := tm.FinalModel(t).(*Model)
	if final.active != pageTasks {
		t.Errorf("a digit typed into the filter switched to page %d", final.active+1)
	}
	if v := final.pages[pageTasks].(*tasksPage).filter.Value(); v != "" {
		t.Errorf("esc should clear the filter, it holds %q", v)
	}
}

// The global keys: tab cycles, digits jump, n opens New from anywhere, ?
// toggles help, and quitting asks first while a request is being sent.
func TestGlobalKeys(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("tab"))
	if m.active != pageNew {
		t.Fatalf("tab: page %d", m.active)
	}
	send(m, tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	send(m, tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if m.active != pageSettings {
		t.Fatalf("shift+tab twice from New: page %d", m.active)
	}
	send(m, press("5"))
	send(m, press("n"))
	if m.active != pageNew {
		t.Fatalf("n: page %d", m.active)
	}
	send(m, press("?"))
	if !strings.Contains(screen(m), "Everywhere") {
		t.Fatalf("? shows no help:\n%s", screen(m))
	}
	send(m, press("?"))
	m.submitting = 1
	_, cmd := m.Update(press("q"))
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("q quit while a request was being sent, without asking")
		}
	}
	if !strings.Contains(screen(m), "Quit while a request is being sent?") {
		t.Fatalf("no question:\n%s", screen(m))
	}
	ctx := m.env.ctx
	send(m, press("y"))
	if !m.quitting || ctx.Err() == nil {
		t.Fatalf("yes did not quit cancelling the backend's work (quitting %v, context %v)", m.quitting, ctx.Err())
	}
}

// Help lists only keys that work where the user is.
func TestHelpNeverListsADeadKey(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	// A finished task: cancel does not apply.
	for _, k := range []string{"G", "enter"} {
		send(m, press(k))
	}
	if got := screen(m); strings.Contains(got, "cancel task") {
		t.Errorf("cancel offered for a finished task:\n%s", got)
	}
	send(m, press("esc"))
	// The list: attach and abandon only on a request of unknown outcome.
	if got := screen(m); strings.Contains(got, "attach task id") {
		t.Errorf("attach offered on an ordinary row:\n%s", got)
	}
}

// Every key a finished video's detail names in its help is readable at
// 80x24 (four columns cut the third and the fourth to "…"), and the help
// fits the screen whole, its closing hint too.
func TestDetailHelpShowsEveryKeyAt80x24(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("G"))
	send(m, press("enter"))
	// The most it can name: a file saved, tasks before and after it.
	d := m.detail()
	d.downloads = []record.Download{{Status: record.DownloadDone, Path: "/tmp/fox.mp4"}}
	d.task.From, d.task.Onward = []record.Link{{}}, []record.Link{{}}
	send(m, press("?"))
	got := screen(m)
	named := 0
	for _, col := range m.detail().Help().FullHelp() {
		for _, b := range col {
			if !b.Enabled() {
				continue
			}
			named++
			if !regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(b.Help().Key) + ` +` + regexp.QuoteMeta(b.Help().Desc) + `(\s|$)`).MatchString(got) {
				t.Errorf("the help lacks %q %q:\n%s", b.Help().Key, b.Help().Desc, got)
			}
		}
	}
	if named != 16 || !strings.Contains(got, "closes this help") {
		t.Errorf("%d keys named, or the closing hint is off the screen:\n%s", named, got)
	}
}

// The help of a list page fits 80x24 whole: every global key and the hint
// that says how to close it.
func TestHelpFitsTheSmallestScreen(t *testing.T) {
	for _, page := range []string{"1", "5"} {
		m, _ := newTestModel(t, 80, 24)
		send(m, press(page))
		send(m, press("?"))
		got := screen(m)
		for _, want := range []string{"next page", "jump to page", "last message in full", "quit", "closes this help"} {
			if !strings.Contains(got, want) {
				t.Errorf("page %s: the help at 80x24 lacks %q:\n%s", page, want, got)
			}
		}
	}
}
