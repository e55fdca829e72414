package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

// onwardTasks add a speech, a cloned voice and a video whose URL is live to
// the standard tasks (whose reference2image result is live, and whose
// first text2video's URL expired two hours ago, never saved).
func onwardTasks() []task {
	return []task{
		{api.OpAudioTTS, "", `{"text":"Hello there","voice_setting_voice_id":"narrator_01"}`, "811000000000000031", api.StateSuccess, 2, "", testNow.Add(-time.Hour), 1},
		{api.OpAudioClone, "", `{"audio_url":"https://x/me.mp3","voice_id":"narrator_77"}`, "811000000000000032", api.StateSuccess, 0, "", testNow.Add(-30 * time.Minute), 0},
		{api.OpText2Video, "svcq3-turbo", `{"model":"svcq3-turbo","prompt":"a fox runs"}`, "811000000000000033", api.StateSuccess, 40, "", testNow.Add(-time.Hour), 1},
	}
}

// localOf is the local id of the task the service knows as taskID.
func localOf(t *testing.T, m *Model, taskID string) int64 {
	t.Helper()
	got, err := m.env.store().TaskByID(context.Background(), taskID)
	if err != nil {
		t.Fatal(err)
	}
	return got.LocalID
}

// pressOnward opens a task's detail and presses s there.
func pressOnward(t *testing.T, m *Model, taskID string) {
	t.Helper()
	send(m, openDetailMsg{localID: localOf(t, m, taskID)})
	if !strings.Contains(screen(m), "s send onward") {
		t.Fatalf("the detail's help does not offer s:\n%s", screen(m))
	}
	send(m, press("s"))
}

// sendOnwardForm sends the form on screen from its review and waits for its task
// to be selected on the Tasks page; it returns the task as history holds it.
func sendOnwardForm(t *testing.T, m *Model, op api.Operation) record.Task {
	t.Helper()
	send(m, ctrl('s'))
	_, cmd := m.Update(press("enter"))
	tp := m.pages[pageTasks].(*tasksPage)
	sent := func() bool {
		sel, ok := tp.win.selected()
		return m.active == pageTasks && ok && sel.Operation == op
	}
	if !runUntil(m, cmd, sent, 10*time.Second) {
		t.Fatalf("no %s task sent (%s):\n%s", op, m.lastStatus, screen(m))
	}
	sel, _ := tp.win.selected()
	got, err := m.env.store().Task(context.Background(), sel.LocalID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// s in the detail lists the places that take what the task made: the
// catalog's fields of that kind, and none of another kind.
func TestOnwardListsThePlacesOfEachKind(t *testing.T) {
	cases := []struct {
		name, taskID string
		want, not    []string
	}{
		{"image", "811000000000000002",
			[]string{"Send an image of #2 (reference2image) onward", "Animate an image → the first frame", "img2video images[0]",
				"First to last frame → first frame", "First to last frame → last frame", "start-end2video images[1]",
				"From references → reference images", "reference2video subjects[].images", "Make an image → reference images or", "general_one_click images"},
			[]string{"video_url", "audio_url", "voice"}},
		{"video", "811000000000000033",
			[]string{"Send a video of", "Lip sync → source video", "lip-sync video_url", "Copy a trend → video to replicate", "trending-replicate video_url"},
			[]string{"images", "audio_url"}},
		{"speech", "811000000000000031",
			[]string{"Send audio of", "Lip sync → audio to sync", "lip-sync audio_url", "Music video → the song", "mv audio_url"},
			[]string{"images", "video_url"}},
		{"clone", "811000000000000032",
			[]string{"Send a voice of", "sends voice narrator_77", "Speech → voice to speak with", "audio-tts voice_setting_voice_id", "lip-sync voice_id"},
			[]string{"images", "audio-clone audio_url", "lip-sync audio_url", "video_url"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newClockedModel(t, onwardTasks())
			pressOnward(t, m, c.taskID)
			got := screen(m)
			if _, open := m.dialog().(*onwardPicker); !open {
				t.Fatalf("no picker:\n%s", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("the picker lacks %q:\n%s", w, got)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("the picker offers %q, a place of another kind:\n%s", n, got)
				}
			}
			send(m, press("esc"))
			if m.dialog() != nil || m.detail() == nil {
				t.Fatalf("esc must close the picker back to the detail:\n%s", screen(m))
			}
		})
	}
}

// enter fills the chosen field of the operation's form; sending it records
// the task it came from, and both details show the chain.
func TestOnwardFillsTheFormAndRecordsTheChain(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	pressOnward(t, m, "811000000000000002")
	for range 2 {
		send(m, press("down"))
	}
	send(m, press("enter"))
	p := m.pages[pageNew].(*newPage)
	url := "http://127.0.0.1:1/811000000000000002/0.mp4"
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Check() != nil && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form did not open checked:\n%s", screen(m))
	}
	got := screen(m)
	if m.active != pageNew || !strings.Contains(got, "img2video · video from one first-frame image") || !strings.Contains(got, "[0] "+url[:40]) {
		t.Fatalf("the img2video form does not show the image in its first frame:\n%s", got)
	}
	if !strings.Contains(got, "img2video images[0] now holds an image of #2") {
		t.Fatalf("no word of what was filled:\n%s", got)
	}
	child := sendOnwardForm(t, m, api.OpImg2Video)
	parent := localOf(t, m, "811000000000000002")
	if len(child.From) != 1 || child.From[0].LocalID != parent || child.From[0].Field != "images[0]" {
		t.Fatalf("the child's parent: %+v", child.From)
	}
	send(m, openDetailMsg{localID: child.LocalID})
	if got := screen(m); !strings.Contains(got, "from: reference2image ✓ #2 (the first frame)  (p opens it)") {
		t.Fatalf("the child's detail does not show where it came from:\n%s", got)
	}
	send(m, press("p"))
	if got := screen(m); m.detail() == nil || m.detail().localID != parent || !strings.Contains(got, "sent onward to: img2video") || !strings.Contains(got, "(the first frame)") {
		t.Fatalf("the parent's detail does not show where it went:\n%s", got)
	}
}

// A form whose field no longer holds the result sends no link: the request
// is the user's own.
func TestOnwardLinkDropsWhenTheFieldIsEdited(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	pressOnward(t, m, "811000000000000033")
	send(m, press("down"))
	send(m, press("enter")) // lip-sync → source video
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Values()["video_url"] != nil }, 5*time.Second) {
		t.Fatalf("the video was not filled:\n%s", screen(m))
	}
	p.form.Apply(map[string]any{"video_url": "https://x/another.mp4", "text": "hello"})
	if !runUntil(m, p.form.Init(), func() bool { return p.form.Checked() && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v", p.form.Check().Broken)
	}
	if child := sendOnwardForm(t, m, api.OpLipSync); len(child.From) != 0 {
		t.Fatalf("a request whose video was replaced keeps a link: %+v", child.From)
	}
}

// A result whose URL lapsed goes on as its saved file; with neither, s
// says why nothing can go, but for a video's creation id, which extend and
// upscale-new take.
func TestOnwardFallsBackToTheSavedFile(t *testing.T) {
	lapsed := task{api.OpReference2Image, "svcq2", `{"model":"svcq2","prompt":"an old map","images":["https://x/m.png"]}`,
		"811000000000000034", api.StateSuccess, 6, "", testNow.Add(-26 * time.Hour), 1}
	m, _ := newClockedModel(t, append(onwardTasks(), lapsed))
	pressOnward(t, m, lapsed.id)
	want := fmt.Sprintf("task #%d cannot be sent onward: the URL expired and its result was never saved here (r re-reads the task for a fresh URL)", localOf(t, m, lapsed.id))
	if got := m.lastStatus; m.dialog() != nil || got != want {
		t.Fatalf("no media, no clear word:\n%s", got)
	}
	send(m, press("esc"))
	pressOnward(t, m, "811000000000000001")
	if got := screen(m); !strings.Contains(got, "sends its video's creation id (its URL lapsed") || strings.Contains(got, "lip-sync") {
		t.Fatalf("a lapsed video goes by its creation id only:\n%s", got)
	}
	s := m.env.studio
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fox.mp4")
	if err := os.WriteFile(path, []byte("mp4"), 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := s.Record().QueueDownload(ctx, "811000000000000001", 0, record.KindURL, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Path: path, Bytes: 3, Total: 3}); err != nil {
		t.Fatal(err)
	}
	send(m, press("esc"))
	pressOnward(t, m, "811000000000000001")
	if got := screen(m); !strings.Contains(got, "sends the saved file (the URL expired)") {
		t.Fatalf("the picker does not send the saved file:\n%s", got)
	}
	send(m, press("down"))
	send(m, press("enter")) // lip-sync → source video
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Values()["video_url"] == path }, 5*time.Second) {
		t.Fatalf("the saved file did not fill the video:\n%s", screen(m))
	}
}

// The picker over the detail of an image, at both sizes, the cursor moved
// once.
func TestOnwardPickerScreens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m, _ := newTestModel(t, size.w, size.h)
			pressOnward(t, m, "811000000000000002")
			send(m, press("down"))
			snapshot(t, m)
		})
	}
}

// A last frame sent to a form with no first frame cannot leave a gap: it
// goes first, and the status line says so; a second image sent as the last
// frame then follows it.
func TestOnwardLastFrameIntoAnEmptyForm(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	pressOnward(t, m, "811000000000000002")
	for range 4 {
		send(m, press("down"))
	}
	send(m, press("enter")) // start-end2video → last frame
	p := m.pages[pageNew].(*newPage)
	url := "http://127.0.0.1:1/811000000000000002/0.mp4"
	if !runUntil(m, nil, func() bool {
		return p.form != nil && p.form.Operation() == api.OpStartEnd2Video && p.form.Values()["images"] != nil
	}, 5*time.Second) {
		t.Fatalf("the frames were not filled:\n%s", screen(m))
	}
	if got := m.lastStatus; !strings.Contains(got, "start-end2video images[0] now holds an image of #2") || !strings.Contains(got, "the list had no item before last frame, so it is images[0] for now") {
		t.Fatalf("status: %s", got)
	}
	pressOnward(t, m, "811000000000000002")
	for range 4 {
		send(m, press("down"))
	}
	send(m, press("enter"))
	want := []any{url, url}
	if !runUntil(m, nil, func() bool { return fmt.Sprint(p.form.Values()["images"]) == fmt.Sprint(want) }, 5*time.Second) {
		t.Fatalf("the second image is not the last frame: %v\n%s", p.form.Values()["images"], screen(m))
	}
	if got := screen(m); !strings.Contains(got, "[1] last frame") {
		t.Fatalf("the form does not show the last frame:\n%s", got)
	}
}

// Variations of a form filled onward come from the same task: each
// version is tied to it, while the form holds the result.
func TestOnwardVariationsKeepTheLink(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	pressOnward(t, m, "811000000000000002")
	for range 2 {
		send(m, press("down"))
	}
	send(m, press("enter")) // img2video → the first frame
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Values()["images"] != nil }, 5*time.Second) {
		t.Fatalf("the image was not filled:\n%s", screen(m))
	}
	body := p.form.Values()
	seeds, err := studio.SeedVariations(api.OpImg2Video, body, 2)
	if err != nil {
		t.Fatal(err)
	}
	p.linkVersions(api.OpImg2Video, seeds)
	parent := localOf(t, m, "811000000000000002")
	for _, v := range seeds {
		if len(v.Parents) != 1 || v.Parents[0].LocalID != parent || v.Parents[0].Field != "images[0]" {
			t.Fatalf("version %s: parents %+v", v.Label, v.Parents)
		}
	}
	// A form whose image was replaced by hand sends versions of its own.
	p.form.Apply(map[string]any{"images": []any{"https://x/other.png"}})
	p.linkVersions(api.OpImg2Video, seeds)
	for _, v := range seeds {
		if len(v.Parents) != 0 {
			t.Fatalf("version %s of a form whose image was replaced is tied to %+v", v.Label, v.Parents)
		}
	}
}

// > in a task's detail opens the task its result was sent onward to (the
// help names > only there); of two, it asks which by number.
func TestDetailOpensTheTaskSentOnwardTo(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	sendImageOnward := func() record.Task {
		pressOnward(t, m, "811000000000000002")
		for range 2 {
			send(m, press("down"))
		}
		send(m, press("enter")) // img2video → the first frame
		p := m.pages[pageNew].(*newPage)
		if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Check() != nil && p.form.Check().OK() }, 5*time.Second) {
			t.Fatalf("the form did not open checked:\n%s", screen(m))
		}
		return sendOnwardForm(t, m, api.OpImg2Video)
	}
	first := sendImageOnward()
	send(m, openDetailMsg{localID: first.LocalID})
	send(m, press("?"))
	if got := screen(m); strings.Contains(got, "task sent onward to") {
		t.Fatalf("the help of a task sent nowhere names >:\n%s", got)
	}
	send(m, press("esc"))
	parent := localOf(t, m, "811000000000000002")
	send(m, openDetailMsg{localID: parent})
	if got := screen(m); !strings.Contains(got, fmt.Sprintf("sent onward to: img2video ◴ #%d (the first frame)  (> opens it)", first.LocalID)) {
		t.Fatalf("the parent's detail does not say > opens the child:\n%s", got)
	}
	send(m, press("?"))
	if got := screen(m); !regexp.MustCompile(`>\s+task sent onward to`).MatchString(got) {
		t.Fatalf("the help does not name >:\n%s", got)
	}
	send(m, press("esc"))
	send(m, press(">"))
	if m.detail() == nil || m.detail().localID != first.LocalID || !strings.Contains(screen(m), "from: reference2image ✓ #2") {
		t.Fatalf("> did not open the task it was sent onward to:\n%s", screen(m))
	}
	// esc walks back along the chain, then leaves the detail.
	send(m, press("p"))
	send(m, press("esc"))
	if m.detail() == nil || m.detail().localID != first.LocalID {
		t.Fatalf("esc after p did not come back to the task p left:\n%s", screen(m))
	}
	send(m, press("esc"))
	if m.detail() == nil || m.detail().localID != parent {
		t.Fatalf("esc after > did not come back to the task > left:\n%s", screen(m))
	}
	send(m, press("esc"))
	if m.detail() != nil {
		t.Fatalf("esc at the start of the walk did not leave the detail:\n%s", screen(m))
	}

	sendImageOnward()
	var second record.Link
	if !runUntil(m, nil, func() bool {
		got, err := m.env.store().Task(context.Background(), parent)
		if err != nil || len(got.Onward) != 2 {
			return false
		}
		for _, l := range got.Onward {
			if l.LocalID != first.LocalID {
				second = l
			}
		}
		return true
	}, 5*time.Second) {
		t.Fatal("the second task sent onward is not linked to the image")
	}
	send(m, openDetailMsg{localID: parent})
	send(m, press(">"))
	got := screen(m)
	if m.dialog() == nil || !strings.Contains(got, "Open which task it was sent onward to?") ||
		!strings.Contains(got, fmt.Sprintf("#%d img2video", first.LocalID)) || !strings.Contains(got, fmt.Sprintf("#%d img2video", second.LocalID)) {
		t.Fatalf("> on a result sent onward twice does not ask which:\n%s", got)
	}
	send(m, press("2"))
	if m.dialog() != nil || m.detail() == nil || m.detail().localID != second.LocalID {
		t.Fatalf("2 did not open the second task sent onward:\n%s", screen(m))
	}
}

// The picker lists as many places as the screen holds: a window with "N of
// 18" at 60x16, every place once the terminal grows to 140x40.
func TestOnwardPickerFitsTheScreen(t *testing.T) {
	m, _ := newTestModel(t, 60, 16)
	pressOnward(t, m, "811000000000000002")
	got := screen(m)
	if !strings.Contains(got, "1 of 18") || strings.Contains(got, "general_one_click images") {
		t.Fatalf("at 60x16 the picker is not a window over 18 places:\n%s", got)
	}
	send(m, tea.WindowSizeMsg{Width: 140, Height: 40})
	got = screen(m)
	if strings.Contains(got, "of 18") || !strings.Contains(got, "reference2video images") || !strings.Contains(got, "multiframe image_settings[].key_image") || !strings.Contains(got, "template2video images") {
		t.Fatalf("at 140x40 the picker does not list all 18 places:\n%s", got)
	}
}

// Two picks fill one form (a task's video into a lip-sync's source, then
// another's speech into its audio): the request remembers both, and the
// detail names both, p asking which to open.
func TestTwoOnwardPicksMakeTwoLinks(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	pressOnward(t, m, "811000000000000033")
	send(m, press("down"))
	send(m, press("enter")) // lip-sync → source video
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Values()["video_url"] != nil }, 5*time.Second) {
		t.Fatalf("the video was not filled:\n%s", screen(m))
	}
	pressOnward(t, m, "811000000000000031")
	for range 3 {
		send(m, press("down"))
	}
	send(m, press("enter")) // lip-sync → audio to sync
	if !runUntil(m, nil, func() bool {
		return p.form != nil && p.form.Values()["audio_url"] != nil && p.form.Values()["video_url"] != nil
	}, 5*time.Second) {
		t.Fatalf("the speech was not filled beside the video:\n%s", screen(m))
	}
	if !runUntil(m, p.form.Init(), func() bool { return p.form.Checked() && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v", p.form.Check().Broken)
	}
	child := sendOnwardForm(t, m, api.OpLipSync)
	fields := map[string]int64{}
	for _, l := range child.From {
		fields[l.Field] = l.LocalID
	}
	if len(child.From) != 2 || fields["video_url"] != localOf(t, m, "811000000000000033") || fields["audio_url"] != localOf(t, m, "811000000000000031") {
		t.Fatalf("the lip-sync came from %+v; want the video and the speech", child.From)
	}
	send(m, openDetailMsg{localID: child.LocalID})
	got := screen(m)
	if !strings.Contains(got, "from: text2video ✓ #") || !strings.Contains(got, "from: audio-tts ✓ #") || !strings.Contains(got, "(p asks which)") {
		t.Fatalf("the detail does not name both sources:\n%s", got)
	}
	send(m, press("p"))
	if got := screen(m); !strings.Contains(got, "Open which task it came from?") {
		t.Fatalf("p with two sources does not ask which:\n%s", got)
	}
}

// l in a task's detail shows its whole chain: every source above it, the
// task (▶), what was made from it, each with its sources; enter opens the
// chosen task's detail, esc closes.
func TestLineageShowsTheWholeChain(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	pressOnward(t, m, "811000000000000033")
	send(m, press("down"))
	send(m, press("enter")) // lip-sync → source video
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Values()["video_url"] != nil }, 5*time.Second) {
		t.Fatalf("the video was not filled:\n%s", screen(m))
	}
	p.form.Apply(map[string]any{"text": "hello there"})
	if !runUntil(m, p.form.Init(), func() bool { return p.form.Checked() && p.form.Check().OK() }, 5*time.Second) {
		t.Fatalf("the form refuses: %v", p.form.Check().Broken)
	}
	child := sendOnwardForm(t, m, api.OpLipSync)
	video := localOf(t, m, "811000000000000033")
	send(m, openDetailMsg{localID: video})
	send(m, press("?"))
	if got := screen(m); !regexp.MustCompile(`l\s+lineage: the whole chain`).MatchString(got) {
		t.Fatalf("the help does not name l:\n%s", got)
	}
	send(m, press("esc"))
	send(m, press("l"))
	got := screen(m)
	if !strings.Contains(got, fmt.Sprintf("Lineage of #%d", video)) || !strings.Contains(got, fmt.Sprintf("▶ #%d text2video ✓", video)) ||
		!strings.Contains(got, fmt.Sprintf("#%d lip-sync", child.LocalID)) || !strings.Contains(got, fmt.Sprintf("← source video of #%d text2video", video)) {
		t.Fatalf("the lineage does not show the chain:\n%s", got)
	}
	send(m, press("down"))
	send(m, press("enter"))
	if m.detail() == nil || m.detail().localID != child.LocalID {
		t.Fatalf("enter did not open the lip-sync's detail:\n%s", screen(m))
	}
	// Typed ahead of the chain's read: ↓ enter act in the chain once it
	// shows, not in the detail under it.
	send(m, openDetailMsg{localID: video})
	_, pressed := m.Update(press("l"))
	_, read := m.Update(pressed()) // the read starts
	for _, k := range []string{"down", "enter"} {
		if _, cmd := m.Update(press(k)); cmd != nil {
			t.Fatalf("%s acted under the chain being read", k)
		}
	}
	run(m, read)
	if m.detail() == nil || m.detail().localID != child.LocalID {
		t.Fatalf("↓ enter typed ahead did not open the lip-sync's detail:\n%s", screen(m))
	}
}

// Keys typed after s while the picker is read go to the picker once it
// is open, as typed ahead: ↓ ↓ enter chooses the third place, as when
// typed after it showed, and nothing moves the detail under it.
func TestOnwardKeysTypedAheadGoToThePicker(t *testing.T) {
	m, _ := newClockedModel(t, onwardTasks())
	send(m, openDetailMsg{localID: localOf(t, m, "811000000000000002")})
	_, pressed := m.Update(press("s"))
	_, read := m.Update(pressed()) // onwardMsg: the read starts
	for _, k := range []string{"down", "down", "enter"} {
		if _, cmd := m.Update(press(k)); cmd != nil {
			t.Fatalf("%s acted under the picker being read", k)
		}
	}
	run(m, read)
	p := m.pages[pageNew].(*newPage)
	if !runUntil(m, nil, func() bool { return p.form != nil && p.form.Check() != nil }, 5*time.Second) {
		t.Fatalf("the keys typed ahead chose nothing:\n%s", screen(m))
	}
	if got := screen(m); m.active != pageNew || !strings.Contains(got, "img2video · video from one first-frame image") {
		t.Fatalf("the third place was not chosen:\n%s", got)
	}
}
