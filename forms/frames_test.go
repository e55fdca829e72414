package forms

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/api/catalog"
)

func framesField(t *testing.T) catalog.Field {
	t.Helper()
	spec, err := catalog.Lookup(api.OpMultiframe, "svcq2-pro")
	if err != nil {
		t.Fatal(err)
	}
	f, ok := spec.Field("image_settings")
	if !ok {
		t.Fatal("multiframe has no image_settings")
	}
	return f
}

// Frames as a draft or a duplicate gives them come back as they were: what
// is no key frame part is kept, flagged, and sent back unchanged.
func TestFramesKeepWhatTheyCannotShow(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	var in any
	if err := json.Unmarshal([]byte(`[{"key_image":"a.png","prompt":"p","duration":3,"speed":2},"odd",{"key_image":7}]`), &in); err != nil {
		t.Fatal(err)
	}
	e.Set(in)
	got, _ := json.Marshal(e.Value())
	if want := `[{"duration":3,"key_image":"a.png","prompt":"p","speed":2},"odd",{"key_image":7}]`; string(got) != want {
		t.Fatalf("frames %s, want %s", got, want)
	}
	view := ansi.Strip(e.View(bareStyles(), 100, false))
	for _, want := range []string{"✗ kept: speed", "✗ not a key frame: odd", "(no key image)"} {
		if !strings.Contains(view, want) {
			t.Errorf("the view lacks %q:\n%s", want, view)
		}
	}
}

// The editor holds at most the field's frames, moves a frame within the
// list only, and brings a removed frame back where it was.
func TestFramesBounds(t *testing.T) {
	f := framesField(t)
	e := newFramesEditor(nil, f)
	e.Focus()
	for i := range f.MaxItems {
		driveEditor(t, e, "ctrl+n", fmt.Sprintf("type:k%d.png", i))
	}
	if driveEditor(t, e, "ctrl+n") || len(e.frames) != f.MaxItems || !strings.Contains(e.notice, fmt.Sprintf("at most %d key frames", f.MaxItems)) {
		t.Fatalf("%d frames, notice %q", len(e.frames), e.notice)
	}
	e.cur = len(e.frames) - 1
	if _, moved := e.Update(tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModAlt}); moved || !strings.Contains(e.notice, "already the last") {
		t.Fatalf("the last frame moved on: %q", e.notice)
	}
	e.cur = 0
	driveEditor(t, e, "ctrl+x")
	if e.frames[0].image != "k1.png" || driveEditor(t, e, "ctrl+z") == false || e.frames[0].image != "k0.png" {
		t.Fatalf("ctrl+x then ctrl+z: %s", e.frames[0].image)
	}
}

// Messages about an item name the frame and its part as people count.
func TestFramesSayWhichFrame(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	if got := e.say("image_settings[1].duration: accepts 2 to 7 seconds, got 9"); got != "frame 2 duration: accepts 2 to 7 seconds, got 9" {
		t.Fatalf("said %q", got)
	}
	if got := e.say("image_settings: takes 2 to 9 items"); got != "image_settings: takes 2 to 9 items" {
		t.Fatalf("said %q", got)
	}
}

// A frame's part row says the gist of what the check found, in the room
// beside the input; the whole message is the form's, under the field.
func TestFramesPartRowSaysTheGist(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	e.Focus()
	driveEditor(t, e, "ctrl+n")
	e.takeCheck([]string{"image_settings[0].key_image: required (the image the video reaches at this key frame)"}, "")
	view := ansi.Strip(e.View(bareStyles(), 100, true))
	if !strings.Contains(view, "✗ required") || strings.Contains(view, "reaches") {
		t.Fatalf("the key image's row:\n%s", view)
	}
}
