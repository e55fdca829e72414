package ui

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
	"clapper/record"
)

// waitScreen waits until the running program draws a word. The renderer
// writes only the cells that change, between styles and cursor moves, so
// a word new on the screen is what can be waited for, not a phrase.
func waitScreen(t *testing.T, tm *teatest.TestModel, word string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(ansi.Strip(string(b)), word)
	}, teatest.WithDuration(hangGuard))
}

// runningModel starts the root on the standard tasks in a running
// program; data is its data directory.
func runningModel(t *testing.T, w, h int) (tm *teatest.TestModel, data string) {
	t.Helper()
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	seed(t, s, clk, standardTasks())
	return runningOn(t, New(s, func() time.Time { return testNow }, nil), w, h), s.Config.DataDir
}

// runningOn runs a root already built in a test program.
func runningOn(t *testing.T, m *Model, w, h int) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Send(tea.BackgroundColorMsg{Color: color.Black})
	return tm
}

// In a running program, u on a finished video's row opens upscale-new on
// it and + in its detail opens extend: both with the video named by its
// creation id, and the cursor where the user goes on.
func TestExtendAndUpscaleAFinishedVideoInARunningProgram(t *testing.T) {
	tm, data := runningModel(t, 100, 30)
	waitScreen(t, tm, "fox")
	tm.Send(press("G")) // the oldest row: text2video, success, one video
	tm.Send(press("u"))
	// The form, and the status line: #1's video (text2video ✓, 1080p) is
	// upscale-new's source: choose above 1080p.
	waitScreen(t, tm, "above")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyRight})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyRight}) // 2K
	tm.Send(press("esc"))
	waitScreen(t, tm, "open") // the operations: enter open form
	tm.Send(press("1"))
	tm.Send(press("enter"))
	waitScreen(t, tm, "Timeline")
	tm.Send(press("+"))
	waitScreen(t, tm, "lengthen")
	tm.Send(press("esc"))
	waitScreen(t, tm, "open")
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	final := tm.FinalModel(t).(*Model)
	if got := final.lastStatus; got != "#1's video (text2video ✓) is extend's source, by its creation id" {
		t.Errorf("the status line does not say what was filled: %s", got)
	}
	draft, err := os.ReadFile(filepath.Join(data, "drafts", "upscale-new.json"))
	if err != nil || !strings.Contains(string(draft), `"upscale_resolution": "2K"`) || !strings.Contains(string(draft), `"video_creation_id": "0"`) ||
		!strings.Contains(string(draft), `"focus": "upscale_resolution"`) {
		t.Errorf("the upscale form left as a draft: %s %v", draft, err)
	}
	p := final.pages[pageNew].(*newPage)
	if got := p.form.Operation(); got != api.OpExtend {
		t.Fatalf("+ opened %s", got)
	}
	if got := p.form.Values()["video_creation_id"]; got != "0" {
		t.Fatalf("extend's video_creation_id %v, want the task's creation id 0", got)
	}
	if got := p.form.FocusedField(); got != "duration" {
		t.Errorf("+ left the cursor on %s, not on by how much to extend", got)
	}
	if origins := fmt.Sprint(p.parentsOf(api.OpExtend)); !strings.Contains(origins, "video_creation_id") {
		t.Fatalf("the extend form does not remember the task it came from: %s", origins)
	}
}

// The keys are offered only on a finished video, and help lists them there.
func TestExtendUpscaleKeysOnlyOnFinishedVideos(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	tp := m.pages[pageTasks].(*tasksPage)
	for _, c := range []struct {
		taskID string
		offers bool
	}{
		{"811000000000000001", true},  // text2video, success
		{"811000000000000002", false}, // reference2image: an image
		{"811000000000000003", false}, // img2video, failed
		{"811000000000000006", false}, // text2video, processing
	} {
		send(m, press("1"))
		send(m, press("g"))
		for range 10 {
			if row, _ := tp.win.selected(); row.TaskID == c.taskID {
				break
			}
			send(m, press("down"))
		}
		if got := tp.KeyMap().Upscale.Enabled() && tp.KeyMap().Extend.Enabled(); got != c.offers {
			t.Errorf("task %s: the Tasks row offers + and u: %v, want %v", c.taskID, got, c.offers)
		}
		send(m, openDetailMsg{localID: localOf(t, m, c.taskID)})
		send(m, press("?"))
		help := screen(m)
		if got := strings.Contains(help, "extend the video") && strings.Contains(help, "upscale the video"); got != c.offers {
			t.Errorf("task %s: the detail's help lists + and u: %v, want %v\n%s", c.taskID, got, c.offers, help)
		}
		send(m, press("?"))
		before := m.pages[pageNew].(*newPage).form
		send(m, press("u"))
		if moved := m.active == pageNew && m.pages[pageNew].(*newPage).form != before; moved != c.offers {
			t.Errorf("task %s: u opened a form: %v, want %v", c.taskID, moved, c.offers)
		}
		send(m, press("esc"))
	}
}

// The send-onward list of a finished video offers extend and upscale-new by
// the video's creation id, in place of their URL fields; a video whose URL
// lapsed unsaved still goes to them, and to nothing else.
func TestOnwardListOffersExtendAndUpscaleByCreation(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	pressOnward(t, m, "811000000000000033")
	if got := screen(m); !strings.Contains(got, "lip-sync") {
		t.Fatalf("a video with a live URL goes to lip-sync too:\n%s", got)
	}
	send(m, press("esc"))
	pressOnward(t, m, "811000000000000001") // its URL expired, never saved
	got := screen(m)
	for _, want := range []string{"extend video_creation_id", "upscale-new video_creation_id"} {
		if !strings.Contains(got, want) {
			t.Errorf("the list lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"extend video_url", "upscale-new video_url", "lip-sync"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the list offers %q beside the creation id:\n%s", unwanted, got)
		}
	}
	for i := 0; !strings.Contains(screen(m), "› Extend a video"); i++ {
		if i > 40 {
			t.Fatalf("no Extend row to choose:\n%s", screen(m))
		}
		send(m, press("down"))
	}
	send(m, press("enter"))
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Values()["video_creation_id"] == "0" }, 5*time.Second) {
		t.Fatalf("extend's form is not filled with the creation id:\n%s", screen(m))
	}
}

// What a new user sees of a finished video and of the forms + and u open.
func TestSourceVideoScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Run("detail", func(t *testing.T) {
				m, _ := newTestModel(t, size.w, size.h)
				send(m, openDetailMsg{localID: localOf(t, m, "811000000000000001")})
				snapshot(t, m)
			})
			for _, k := range []string{"+", "u"} {
				t.Run(map[string]string{"+": "extend", "u": "upscale"}[k], func(t *testing.T) {
					m, _ := newTestModel(t, size.w, size.h)
					send(m, openDetailMsg{localID: localOf(t, m, "811000000000000001")})
					send(m, press(k))
					p := m.pages[pageNew].(*newPage)
					if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Checked() }, 5*time.Second) {
						t.Fatalf("no form:\n%s", screen(m))
					}
					snapshot(t, m)
				})
			}
		})
	}
}

// A text2audio result goes on as a music video's audio or a lip-sync track.
func TestText2AudioResultGoesOnAsAudio(t *testing.T) {
	sound := task{api.OpText2Audio, "audio1.0", `{"model":"audio1.0","prompt":"rain on a tin roof","duration":6}`,
		"811000000000000041", api.StateSuccess, 5, "", testNow.Add(-time.Hour), 1}
	m, _ := newClockedModel(t, []task{sound})
	pressOnward(t, m, sound.id)
	got := screen(m)
	for _, want := range []string{"lip-sync", "mv"} {
		if !strings.Contains(got, want+" ") {
			t.Errorf("the list lacks %s:\n%s", want, got)
		}
	}
	for i := 0; !strings.Contains(screen(m), "› Music video"); i++ {
		if i > 40 {
			t.Fatalf("no Music video row to choose:\n%s", screen(m))
		}
		send(m, press("down"))
	}
	send(m, press("enter"))
	p := m.pages[pageNew].(*newPage)
	url := "http://127.0.0.1:1/811000000000000041/0.mp4"
	if !runUntil(m, nil, func() bool {
		return p.form != nil && p.form.Operation() == api.OpMV && strings.Contains(fmt.Sprint(p.form.Values()), url)
	}, 5*time.Second) {
		t.Fatalf("the music video's audio does not hold the sound:\n%s", screen(m))
	}
	if parents := p.parentsOf(api.OpMV); len(parents) != 1 || parents[0].LocalID != localOf(t, m, sound.id) {
		t.Fatalf("the music video does not remember the sound it came from: %v", parents)
	}

}

// A video extended or upscaled goes on like any video (issue 30, item 4):
// its detail offers + and u, its send-onward list lip-sync, a reference
// video of a new scene and extend and upscale-new by its creation id; the
// task it is sent to names it as its source.
func TestExtendedAndUpscaledVideosGoOn(t *testing.T) {
	extended := task{api.OpExtend, "svcq2-pro", `{"model":"svcq2-pro","video_creation_id":"0","duration":3}`,
		"811000000000000051", api.StateSuccess, 20, "", testNow.Add(-time.Hour), 1}
	upscaled := task{api.OpUpscaleNew, "", `{"video_creation_id":"0","upscale_resolution":"4K"}`,
		"811000000000000052", api.StateSuccess, 30, "", testNow.Add(-time.Hour), 1}
	for _, src := range []task{extended, upscaled} {
		t.Run(string(src.op), func(t *testing.T) {
			m, _ := newClockedModel(t, []task{src})
			send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
			pressOnward(t, m, src.id)
			got := screen(m)
			for _, want := range []string{"lip-sync video_url", "reference2video videos", "extend video_creation_id", "upscale-new video_creation_id"} {
				if !strings.Contains(got, want) {
					t.Errorf("the send-onward list of a %s video lacks %q:\n%s", src.op, want, got)
				}
			}
			send(m, press("esc"))
			send(m, press("+"))
			p := m.pages[pageNew].(*newPage)
			if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Operation() == api.OpExtend && p.form.Checked() }, 5*time.Second) {
				t.Fatalf("+ on a %s video opened no extend form:\n%s", src.op, screen(m))
			}
			if got := p.form.Values()["video_creation_id"]; got != "0" {
				t.Fatalf("extend's video_creation_id %v, want the %s task's creation id", got, src.op)
			}
			child := sendOnwardForm(t, m, api.OpExtend)
			parent := localOf(t, m, src.id)
			if len(child.From) != 1 || child.From[0].LocalID != parent || child.From[0].Field != "video_creation_id" {
				t.Fatalf("the extension's source: %+v, want #%d video_creation_id", child.From, parent)
			}
			send(m, openDetailMsg{localID: child.LocalID})
			if want := fmt.Sprintf("from: %s ✓ #%d (video_creation_id)", src.op, parent); !strings.Contains(screen(m), want) {
				t.Fatalf("the extension's detail does not say %q:\n%s", want, screen(m))
			}
		})
	}
}

// What the status line says as upscale-new takes a video: the resolution
// to go above, read from the source's request (its model's default when it
// gave none), or nothing when its request names none.
func TestSourceNoteNamesTheResolutionToGoAbove(t *testing.T) {
	for _, c := range []struct {
		op   api.Operation
		body string
		want string
	}{
		{api.OpText2Video, `{"model":"svcq1","prompt":"a fox"}`, "#7's video (text2video ✓, 1080p) is upscale-new's source: choose above 1080p"},
		{api.OpText2Video, `{"model":"svcq3-pro","prompt":"a fox","resolution":"540p"}`, "#7's video (text2video ✓, 540p) is upscale-new's source: choose above 540p"},
		{api.OpUpscaleNew, `{"video_creation_id":"9","upscale_resolution":"4K"}`, "#7's video (upscale-new ✓, 4K) is upscale-new's source: choose above 4K"},
		{api.OpUpscaleNew, `{"video_creation_id":"9","upscale_resolution":"8K"}`, "#7's video (upscale-new ✓) is already 8K: no resolution is above it"},
		{api.OpLipSync, `{"video_url":"https://x/v.mp4","text":"hello there"}`, "#7's video (lip-sync ✓) is upscale-new's source, by its creation id"},
	} {
		got := sourceNote(api.OpUpscaleNew, record.Task{LocalID: 7, Operation: c.op, State: api.StateSuccess, Request: []byte(c.body)})
		if got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.op, c.body, got, c.want)
		}
	}
}
