package ui

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"clapper/api"
)

// framesDir holds a start image and three key frames, and is the folder
// paths are typed from.
func framesDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 200, 200))); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"start.png", "fox1.png", "fox2.png", "fox3.png"} {
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func alt(code rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code, Mod: tea.ModAlt} }

// In a running program, the key-frame editor takes a start image and key
// frames typed with path completion, says which frame breaks which rule as
// it is typed, moves, removes and brings back a frame, adds the durations
// up, and sends the frames in their order.
func TestMultiframeEditorInARunningProgram(t *testing.T) {
	dir := framesDir(t)
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	m := New(s, func() time.Time { return testNow }, nil)
	m.pages[pageNew].(*newPage).ctx.Dir = dir
	tm := runningOn(t, m, 100, 30)
	tm.Send(press("2"))
	for range 15 { // multiframe is the sixteenth operation
		tm.Send(press("down"))
	}
	tm.Send(press("enter"))
	waitScreen(t, tm, "svcq2-turbo")
	tm.Send(press("enter"))      // its first model
	waitScreen(t, tm, "through") // multiframe · video through 2-9 key frames
	tm.Type("start.png")
	tm.Send(press("enter"))
	waitScreen(t, tm, "ctrl+n")
	tm.Type("fox1")
	tm.Send(press("tab")) // completes fox1.png
	tm.Send(press("down"))
	tm.Type("the fox turns")
	tm.Send(press("down"))
	tm.Type("9")
	waitScreen(t, tm, "got") // svcq2-pro accepts 2 to 7 seconds, got 9
	tm.Send(press("backspace"))
	tm.Type("3")
	tm.Send(ctrl('n'))
	tm.Type("fox2.png")
	tm.Send(ctrl('n'))
	tm.Type("fox3.png")
	tm.Send(alt(tea.KeyUp))  // fox3 before fox2
	waitScreen(t, tm, "now") // frame 3 is now frame 2
	tm.Send(press("pgdown")) // fox2, now the third
	tm.Send(ctrl('x'))
	waitScreen(t, tm, "removed")
	tm.Send(ctrl('z'))
	waitScreen(t, tm, "brought")
	tm.Send(press("esc"))
	waitScreen(t, tm, "open") // the operations: enter open form
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	final := tm.FinalModel(t).(*Model)
	p := final.pages[pageNew].(*newPage)
	got := fmt.Sprint(p.form.Values()["image_settings"])
	want := "[map[duration:3 key_image:fox1.png prompt:the fox turns] map[key_image:fox3.png] map[key_image:fox2.png]]"
	if got != want {
		t.Fatalf("frames %s\nwant   %s", got, want)
	}
}

// A multiframe form left is a draft: a new program on the same data
// restores its frames in their order.
func TestMultiframeDraftSurvivesARestart(t *testing.T) {
	dir := framesDir(t)
	clk := &clock{t: testNow}
	data := filepath.Join(testRoot, "multiframe-draft")
	os.RemoveAll(data)
	t.Cleanup(func() { os.RemoveAll(data) })
	first := New(newTestStudioIn(t, clk, data), clk.now, nil)
	send(first, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(first, first.Init())
	p := showForm(t, first, api.OpMultiframe, "svcq2-turbo")
	p.ctx.Dir = dir
	typeAndSettle(t, first, p, "start.png", "enter", "fox2.png")
	send(first, ctrl('n'))
	typeAndSettle(t, first, p, "fox1.png", "down", "down", "4")
	send(first, press("esc"))

	second := New(newTestStudioIn(t, clk, data), clk.now, nil)
	send(second, tea.WindowSizeMsg{Width: 80, Height: 24})
	q := second.pages[pageNew].(*newPage)
	q.ctx.Dir = dir
	if !runUntil(second, second.Init(), func() bool {
		return q.form != nil && q.form.Operation() == api.OpMultiframe && q.form.Checked()
	}, 5*time.Second) {
		t.Fatalf("the multiframe draft is not restored:\n%s", screen(second))
	}
	got := fmt.Sprint(q.form.Values()["image_settings"])
	if want := "[map[key_image:fox2.png] map[duration:4 key_image:fox1.png]]"; got != want {
		t.Fatalf("restored frames %s, want %s", got, want)
	}
	if q.form.Model() != "svcq2-turbo" {
		t.Fatalf("restored model %s", q.form.Model())
	}
	if body := fmt.Sprint(q.form.Check().Body["image_settings"]); strings.Count(body, "data:image/png;base64,") != 2 {
		t.Fatalf("the key frames' files are not sent as data URIs: %.300s", body)
	}
}

// What the key-frame editor looks like with three frames, one open and one
// breaking a rule, on a small and a large terminal.
func TestMultiframeScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m, _ := newTestModel(t, size.w, size.h)
			p := showForm(t, m, api.OpMultiframe, "svcq2-pro")
			p.ctx.Dir = framesDir(t)
			typeAndSettle(t, m, p, "https://example.com/start.png", "enter", "https://example.com/k1.png", "down", "the fox turns its head", "down", "3")
			send(m, ctrl('n'))
			typeAndSettle(t, m, p, "https://example.com/k2.png", "down", "down", "8")
			send(m, ctrl('n'))
			typeAndSettle(t, m, p, "https://example.com/k3.png", "down", "it looks at the camera")
			send(m, press("pgup"))
			typeAndSettle(t, m, p)
			snapshot(t, m)
		})
	}
}

// ctrl+l in an image field steps through the images made here, each named
// by its task: the start image and a key frame take one without a path.
func TestImagesMadeHereFillImageFields(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	send(m, press("2"))
	p := m.pages[pageNew].(*newPage)
	// The form reads the images made here as it opens.
	opened := func() bool { return p.form != nil && p.form.Checked() && len(p.ctx.Results) > 0 }
	if !runUntil(m, p.openForm(api.OpMultiframe, "svcq2-pro", nil), opened, 5*time.Second) {
		t.Fatalf("the form read no images made here:\n%s", screen(m))
	}
	send(m, tea.KeyPressMsg{Code: tea.KeyF1})
	if !strings.Contains(screen(m), "an image made here") {
		t.Fatalf("the start image's keys do not offer ctrl+l:\n%s", screen(m))
	}
	send(m, tea.KeyPressMsg{Code: tea.KeyF1})
	url := "http://127.0.0.1:1/811000000000000002/0.mp4" // #2, reference2image, its URL still valid
	send(m, ctrl('l'))
	typeAndSettle(t, m, p)
	if got := p.form.Values()["start_image"]; got != url {
		t.Fatalf("ctrl+l put %v in the start image, want #2's image %s", got, url)
	}
	if got := screen(m); !strings.Contains(got, "result 1 of 1: #2 reference2image · a cat astronaut, studio light (ctrl+l: the next)") {
		t.Fatalf("the start image does not say which result it holds:\n%s", got)
	}
	send(m, press("enter")) // on to the key frames
	send(m, ctrl('n'))
	send(m, ctrl('l'))
	typeAndSettle(t, m, p)
	if got := fmt.Sprint(p.form.Values()["image_settings"]); got != "[map[key_image:"+url+"]]" {
		t.Fatalf("ctrl+l in a key frame: %s", got)
	}
	if got := screen(m); !strings.Contains(got, "1  #2 reference2image · a cat") {
		t.Fatalf("the key frame is not named by its task:\n%s", got)
	}
}

// In a running program, an image made here goes onward from its detail (s)
// into multiframe as its start image and as a new key frame, and another
// image as the next key frame: each place a link of its own to its task.
func TestImagesSentOnwardAsKeyFrames(t *testing.T) {
	clk := &clock{t: testNow}
	s := newTestStudio(t, clk)
	fox := task{api.OpReference2Image, "svcq2", `{"model":"svcq2","prompt":"a fox in tall grass"}`, "811000000000000041", api.StateSuccess, 6, "", testNow.Add(-time.Minute), 1}
	seed(t, s, clk, append(standardTasks(), fox))
	tm := runningOn(t, New(s, func() time.Time { return testNow }, nil), 140, 40)
	waitScreen(t, tm, "cat astronaut")
	onward := func(row []string, ups int, said string) {
		t.Helper()
		for _, k := range row {
			tm.Send(press(k))
		}
		tm.Send(press("enter"))
		waitScreen(t, tm, "Timeline")
		tm.Send(press("s"))
		waitScreen(t, tm, "Key frames → a new key frame") // beside multiframe image_settings[].key_image
		for range ups {
			tm.Send(press("up")) // from the top, up wraps to the end of the list
		}
		tm.Send(press("enter"))
		waitScreen(t, tm, said)
		tm.Send(press("esc"))
		waitScreen(t, tm, "open") // the operations: enter open form
		tm.Send(press("1"))
	}
	// What each step waits for is drawn anew (the renderer writes only the
	// cells that change): the status line, then each frame's row.
	onward([]string{"G", "up"}, 3, "start_image now holds an image of #2") // #2, reference2image
	onward(nil, 2, "1  #2 reference2image · a cat")
	onward([]string{"g"}, 2, "2  #8 reference2image · a fox") // the newest
	tm.Send(press("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(hangGuard))
	p := tm.FinalModel(t).(*Model).pages[pageNew].(*newPage)
	cat, fox2 := "http://127.0.0.1:1/811000000000000002/0.mp4", "http://127.0.0.1:1/811000000000000041/0.mp4"
	if got, want := fmt.Sprint(p.form.Values()["image_settings"]), "[map[key_image:"+cat+"] map[key_image:"+fox2+"]]"; got != want {
		t.Errorf("key frames %s, want %s", got, want)
	}
	if got := p.form.Values()["start_image"]; got != cat {
		t.Errorf("start image %v, want %s", got, cat)
	}
	want := "[{2 start_image} {2 image_settings[0].key_image} {8 image_settings[1].key_image}]"
	if got := fmt.Sprint(p.parentsOf(api.OpMultiframe)); got != want {
		t.Errorf("the form is tied to %s, want %s", got, want)
	}
}
