package forms

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api/catalog"
)

// The key-frame editor driven by its own keys, as its help names them: what
// the user sees (View) and the image_settings it sends (Value). The ui
// package drives it inside the whole program; these run with forms' own
// tests, which is what `make mutate` measures.

// focusedFrames is an editor for multiframe's key frames, focused, with the
// given key images typed one frame each.
func focusedFrames(t *testing.T, ctx *Context, images ...string) *framesEditor {
	t.Helper()
	e := newFramesEditor(ctx, framesField(t))
	e.Focus()
	for _, img := range images {
		driveEditor(t, e, "ctrl+n", "type:"+img)
	}
	return e
}

// sent is the editor's value as the request's JSON carries it.
func sent(t *testing.T, e *framesEditor) string {
	t.Helper()
	b, err := json.Marshal(e.Value())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// seen is the editor's view without styles.
func seen(e *framesEditor, width int) string {
	return ansi.Strip(e.View(bareStyles(), width, true))
}

// images lists the frames' key images in order, as sent.
func images(t *testing.T, e *framesEditor) string {
	t.Helper()
	var out []string
	for _, it := range e.Value().([]any) {
		out = append(out, fmt.Sprint(it.(map[string]any)["key_image"]))
	}
	return strings.Join(out, " ")
}

// Typing on "+ add key frame" starts a frame with its key image; ↓ and
// enter walk its key image, prompt and duration, then the next frame; ↑
// comes back to the frame before's duration.
func TestFramesKeysWalkTheParts(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	e.Focus()
	if !driveEditor(t, e, "type:a.png") {
		t.Fatal("typing on the add row changed nothing")
	}
	driveEditor(t, e, "down", "type:a fox ", "enter", "type:3", "down")
	if !strings.Contains(seen(e, 80), "▸ + add key frame") {
		t.Fatalf("↓ from the last part of the last frame is not on the add row:\n%s", seen(e, 80))
	}
	// The add row is the list's end: ↓ there is the form's, to the next field.
	if e.OwnsKey(keyOf("down")) {
		t.Error("the editor keeps ↓ on its last row")
	}
	driveEditor(t, e, "enter", "type:b.png", "up", "type:.5")
	if got, want := sent(t, e), `[{"duration":3.5,"key_image":"a.png","prompt":"a fox "},{"key_image":"b.png"}]`; got != want {
		t.Fatalf("sent %s, want %s", got, want)
	}
	// Back to the very first part: ↑ there is the form's again.
	driveEditor(t, e, "up")
	if !e.OwnsKey(keyOf("up")) {
		t.Fatal("↑ on frame 1's prompt is not the editor's")
	}
	driveEditor(t, e, "up")
	if e.OwnsKey(keyOf("up")) || !e.OwnsKey(keyOf("down")) || !e.OwnsKey(keyOf("enter")) {
		t.Error("on frame 1's key image ↑ should be the form's, ↓ and enter the editor's")
	}
	if !strings.Contains(seen(e, 80), "› key image") {
		t.Errorf("↑ three times from frame 2's key image is not on frame 1's key image:\n%s", seen(e, 80))
	}
}

// A paste on the add row is a new frame's key image; enter there adds an
// empty frame, which the summary flags.
func TestFramesPasteOnTheAddRowStartsAFrame(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	e.Focus()
	if _, changed := e.Update(tea.PasteMsg{Content: "https://x.test/k.png"}); !changed {
		t.Fatal("a paste on the add row changed nothing")
	}
	driveEditor(t, e, "pgdown", "enter", "down")
	if got, want := sent(t, e), `[{"key_image":"https://x.test/k.png"},{}]`; got != want {
		t.Fatalf("sent %s, want %s", got, want)
	}
	v := seen(e, 80)
	if !strings.Contains(v, "(no key image)") || !strings.Contains(v, "required: a file path, URL or image made here") {
		t.Errorf("an empty frame is not flagged:\n%s", v)
	}
}

// ctrl+n adds a frame after the focused one, not at the end.
func TestFramesAddAfterTheFocusedFrame(t *testing.T) {
	e := focusedFrames(t, nil, "a.png", "c.png")
	driveEditor(t, e, "pgup", "ctrl+n", "type:b.png")
	if got := images(t, e); got != "a.png b.png c.png" {
		t.Fatalf("frames %s, want a.png b.png c.png", got)
	}
}

// pgup and pgdown go from frame to frame, to its key image, and stop at the
// first frame and at the add row.
func TestFramesPageKeysJumpFrames(t *testing.T) {
	e := focusedFrames(t, nil, "a.png", "b.png")
	driveEditor(t, e, "down") // b.png's prompt
	driveEditor(t, e, "pgup", "type:1")
	if got := images(t, e); got != "a.png1 b.png" {
		t.Fatalf("pgup did not land on frame 1's key image: %s", got)
	}
	driveEditor(t, e, "pgup", "type:2")
	if got := images(t, e); got != "a.png12 b.png" {
		t.Fatalf("pgup on frame 1 moved: %s", got)
	}
	driveEditor(t, e, "pgdown", "pgdown", "pgdown")
	if !strings.Contains(seen(e, 80), "▸ + add key frame") {
		t.Fatalf("pgdown does not stop on the add row:\n%s", seen(e, 80))
	}
	driveEditor(t, e, "type:c.png")
	if got := images(t, e); got != "a.png12 b.png c.png" {
		t.Fatalf("typing after pgdown on the add row: %s", got)
	}
}

// ctrl+x removes the focused frame at once and says how to bring it back;
// ctrl+z puts it back where it was. On the add row there is nothing to
// remove.
func TestFramesRemoveAndUndo(t *testing.T) {
	e := focusedFrames(t, nil, "a.png", "b.png", "c.png")
	driveEditor(t, e, "pgdown")
	if driveEditor(t, e, "ctrl+x") {
		t.Fatal("ctrl+x on the add row removed something")
	}
	if got := images(t, e); got != "a.png b.png c.png" {
		t.Fatalf("frames %s after ctrl+x on the add row", got)
	}
	if driveEditor(t, e, "ctrl+z") {
		t.Fatal("ctrl+z with nothing removed changed something")
	}
	driveEditor(t, e, "pgup", "pgup")
	if !driveEditor(t, e, "ctrl+x") || images(t, e) != "a.png c.png" {
		t.Fatalf("ctrl+x on frame 2: %s", images(t, e))
	}
	if v := seen(e, 80); !strings.Contains(v, "removed frame 2 · ctrl+z brings it back") {
		t.Fatalf("no word of the removal:\n%s", v)
	}
	if !hasKey(e.Keys(), "ctrl+z") {
		t.Error("the help does not offer ctrl+z after a removal")
	}
	driveEditor(t, e, "pgup")
	if !driveEditor(t, e, "ctrl+z") || images(t, e) != "a.png b.png c.png" {
		t.Fatalf("ctrl+z: %s", images(t, e))
	}
	if v := seen(e, 80); !strings.Contains(v, "brought back frame 2") || !strings.Contains(v, "▸ 2") {
		t.Fatalf("the frame brought back is not said and focused:\n%s", v)
	}
	if hasKey(e.Keys(), "ctrl+z") {
		t.Error("the help offers ctrl+z with nothing left to bring back")
	}
}

// A removed frame comes back only where it fits: at 9 frames, ctrl+z says
// to remove one first.
func TestFramesUndoAtTheMostFrames(t *testing.T) {
	f := framesField(t)
	e := newFramesEditor(nil, f)
	e.Focus()
	for i := range f.MaxItems {
		driveEditor(t, e, "ctrl+n", fmt.Sprintf("type:k%d.png", i))
	}
	driveEditor(t, e, "ctrl+x")
	if !hasKey(e.Keys(), "ctrl+n") {
		t.Fatal("the help does not offer ctrl+n under the most frames")
	}
	driveEditor(t, e, "ctrl+n", "type:new.png")
	if hasKey(e.Keys(), "ctrl+n") {
		t.Error("the help offers ctrl+n at the most frames")
	}
	if driveEditor(t, e, "ctrl+z") || len(e.Value().([]any)) != f.MaxItems {
		t.Fatalf("ctrl+z at %d frames brought one back: %d", f.MaxItems, len(e.Value().([]any)))
	}
	if v := seen(e, 80); !strings.Contains(v, fmt.Sprintf("multiframe takes at most %d key frames: remove one first", f.MaxItems)) {
		t.Fatalf("no word of why:\n%s", v)
	}
	driveEditor(t, e, "ctrl+x")
	if !driveEditor(t, e, "ctrl+z") || !strings.HasSuffix(images(t, e), "k7.png new.png") {
		t.Fatalf("ctrl+z with room: %s", images(t, e))
	}
}

// A field without a bound on its frames (a catalog layer may drop it)
// takes as many as are added, and gives them back.
func TestFramesWithoutABound(t *testing.T) {
	f := catalog.Field{Name: "image_settings", Kind: catalog.KindKeyFrames}
	e := newFramesEditor(nil, f)
	e.Focus()
	for i := range 11 {
		if !driveEditor(t, e, "ctrl+n", fmt.Sprintf("type:k%d.png", i)) {
			t.Fatalf("frame %d was not added", i+1)
		}
	}
	if c := e.Counter(); c != "11" {
		t.Errorf("counter %q, want 11", c)
	}
	if !hasKey(e.Keys(), "ctrl+n") {
		t.Error("the help does not offer ctrl+n")
	}
	driveEditor(t, e, "ctrl+x")
	if !driveEditor(t, e, "ctrl+z") || len(e.Value().([]any)) != 11 {
		t.Fatalf("ctrl+z: %d frames", len(e.Value().([]any)))
	}
	e.SetField(catalog.Field{Name: "image_settings", Kind: catalog.KindKeyFrames, MinItems: 2})
	if c := e.Counter(); c != "11 of 2+" {
		t.Errorf("counter %q, want 11 of 2+", c)
	}
	e.SetField(framesField(t))
	if c := e.Counter(); c != "11 of 2-9" {
		t.Errorf("counter %q, want 11 of 2-9", c)
	}
}

// alt+↑ and alt+↓ (ctrl+↑/↓ where the terminal eats alt) move the focused
// frame, which stays focused; at the ends they say so.
func TestFramesMoveAFrame(t *testing.T) {
	altUp := tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt}
	altDown := tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModAlt}
	ctrlDown := tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModCtrl}

	e := focusedFrames(t, nil, "a.png")
	driveEditor(t, e, "pgup")
	if _, moved := e.Update(altUp); moved || strings.Contains(seen(e, 80), "already") {
		t.Fatalf("a lone frame moved or was told about:\n%s", seen(e, 80))
	}
	if hasKey(e.Keys(), "alt+up") || hasKey(e.Keys(), "pgup") {
		t.Errorf("the help offers to move a lone frame or to go to another: %v", e.Keys())
	}

	e = focusedFrames(t, nil, "a.png", "b.png", "c.png")
	driveEditor(t, e, "pgdown")
	for _, k := range []tea.KeyPressMsg{altUp, altDown} {
		if _, moved := e.Update(k); moved || strings.Contains(seen(e, 80), "already") {
			t.Fatalf("%s on the add row moved or was told about:\n%s", k, seen(e, 80))
		}
	}
	if hasKey(e.Keys(), "alt+up") {
		t.Error("the help offers to move the add row")
	}
	driveEditor(t, e, "pgup", "pgup")
	if _, moved := e.Update(altUp); !moved || images(t, e) != "b.png a.png c.png" {
		t.Fatalf("alt+↑ on frame 2: %s", images(t, e))
	}
	if v := seen(e, 80); !strings.Contains(v, "frame 2 is now frame 1") || !strings.Contains(v, "▸ 1  b.png") {
		t.Fatalf("the moved frame is not said or not focused:\n%s", v)
	}
	if _, moved := e.Update(altUp); moved || !strings.Contains(seen(e, 80), "frame 1 is already the first") {
		t.Fatalf("alt+↑ on frame 1:\n%s", seen(e, 80))
	}
	if _, moved := e.Update(ctrlDown); !moved || images(t, e) != "a.png b.png c.png" {
		t.Fatalf("ctrl+↓ on frame 1: %s", images(t, e))
	}
	driveEditor(t, e, "pgdown")
	if _, moved := e.Update(altDown); moved || !strings.Contains(seen(e, 80), "frame 3 is already the last") {
		t.Fatalf("alt+↓ on frame 3:\n%s", seen(e, 80))
	}
	if !hasKey(e.Keys(), "alt+up") || !hasKey(e.Keys(), "pgup") {
		t.Errorf("the help on frame 3 of 3 lacks alt+↑/↓ or pgup/pgdn: %v", e.Keys())
	}
}

// A frame the editor cannot show (no object) and a key image given as a
// data URI are kept as given: typing says how to replace them, backspace
// removes them, the other parts still take typing.
func TestFramesKeptAsGiven(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	e.Set([]any{"odd", map[string]any{"key_image": "data:image/png;base64,AAAA", "prompt": "p"}})
	e.Focus()
	if driveEditor(t, e, "type:x") {
		t.Fatal("typing on a frame kept as given changed it")
	}
	if v := seen(e, 80); !strings.Contains(v, "this is kept as given: backspace removes it") {
		t.Fatalf("typing on a kept frame is not answered:\n%s", v)
	}
	if !hasKey(e.Keys(), "backspace") || hasKey(e.Keys(), "tab") {
		t.Errorf("the help on a kept frame: %v", e.Keys())
	}
	driveEditor(t, e, "pgdown")
	if driveEditor(t, e, "type:x") || !strings.Contains(seen(e, 80), "a data URI is not typed over: backspace removes it, then type a path or URL") {
		t.Fatalf("typing on a data URI:\n%s", seen(e, 80))
	}
	if v := seen(e, 80); !strings.Contains(v, "data:image/png;base64 · 3 B") || !strings.Contains(v, "backspace removes it") {
		t.Fatalf("the data URI's row:\n%s", v)
	}
	driveEditor(t, e, "down", "type:!")
	if hasKey(e.Keys(), "backspace") {
		t.Error("the help offers backspace to remove a prompt")
	}
	driveEditor(t, e, "up", "backspace", "type:k.png", "pgup", "backspace")
	if got, want := sent(t, e), `[{"key_image":"k.png","prompt":"p!"}]`; got != want {
		t.Fatalf("sent %s, want %s", got, want)
	}
}

// A frame opened shows its three parts, the focused one marked, each with
// what it takes.
func TestFramesOpenFrameShowsItsParts(t *testing.T) {
	e := focusedFrames(t, nil, "https://x.test/a.png")
	driveEditor(t, e, "pgup", "down")
	v := seen(e, 80)
	for _, want := range []string{"     key image  https://x.test/a.png", "URL", "   › prompt     ", "optional", "     duration   5 s when none is given", "2-7 s"} {
		if !strings.Contains(v, want) {
			t.Errorf("the open frame lacks %q:\n%s", want, v)
		}
	}
	if strings.Count(v, "›") != 1 {
		t.Errorf("not one part marked:\n%s", v)
	}
	driveEditor(t, e, "type:dawn", "down", "type:7")
	v = seen(e, 80)
	if !strings.Contains(v, "     prompt     dawn") || !strings.Contains(v, "“dawn”") || !strings.Contains(v, "  7 s") {
		t.Errorf("the typed parts are not shown:\n%s", v)
	}
}

// A file picked with ctrl+o goes into the focused key image, and only there.
func TestFramesPickedFileGoesToTheKeyImage(t *testing.T) {
	e := focusedFrames(t, nil, "a.png")
	driveEditor(t, e, "pgup")
	if f, ok := e.pickField(); !ok || f.Media != catalog.MediaImage {
		t.Fatalf("a key image does not take a picked image: %v %v", f, ok)
	}
	e.takePicked("/pics/b.png")
	driveEditor(t, e, "down")
	if _, ok := e.pickField(); ok {
		t.Fatal("a prompt takes a picked file")
	}
	e.takePicked("/pics/c.png")
	if got, want := sent(t, e), `[{"key_image":"/pics/b.png"}]`; got != want {
		t.Fatalf("sent %s, want %s", got, want)
	}
}

// A folder listing that completes a key image's path after the cursor
// moved on belongs to the frame the path was typed in.
func TestFramesCompletionKeepsItsFrame(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shot.png"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := focusedFrames(t, &Context{Dir: dir}, "a.png", "sh")
	cmd, _ := e.Update(keyOf("tab")) // the listing of "sh" is not read yet
	driveEditor(t, e, "up")          // frame 1's duration
	var listed []tea.Msg
	for _, m := range settle(nil, cmd) {
		if _, ok := m.(PathsListedMsg); ok {
			listed = append(listed, m)
		}
	}
	if len(listed) == 0 {
		t.Fatal("tab read no listing")
	}
	changed := false
	for _, m := range listed {
		_, c := e.Update(m)
		changed = changed || c
	}
	if got := images(t, e); !changed || got != "a.png shot.png" {
		t.Fatalf("after the listing: %s (changed %v), want a.png shot.png", got, changed)
	}
}

// Set takes what a draft holds: nothing is no frames, one object is one
// frame, numbers as JSON decodes them.
func TestFramesSetFromADraft(t *testing.T) {
	e := newFramesEditor(nil, framesField(t))
	e.Set(nil)
	if v := e.Value(); v != nil {
		t.Fatalf("Set(nil) gave %v", v)
	}
	if v := ansi.Strip(e.View(bareStyles(), 80, false)); !strings.HasPrefix(v, "no key frames") {
		t.Errorf("no frames, unfocused:\n%s", v)
	}
	e.Set(map[string]any{"key_image": "a.png", "duration": 4.5})
	if got, want := sent(t, e), `[{"duration":4.5,"key_image":"a.png"}]`; got != want {
		t.Fatalf("one object: sent %s, want %s", got, want)
	}
	e.Set([]any{map[string]any{"key_image": "b.png", "duration": json.Number("2")}})
	if got := e.Value(); !reflect.DeepEqual(got, []any{map[string]any{"key_image": "b.png", "duration": json.Number("2")}}) {
		t.Fatalf("a json.Number duration: %#v", got)
	}
}

func hasKey(ks []key.Binding, k string) bool {
	for _, b := range ks {
		if slices.Contains(b.Keys(), k) {
			return true
		}
	}
	return false
}

// ctrl+l steps through history's images only when there are some: with
// none it leaves the key image as typed.
func TestFramesNextResultWithNone(t *testing.T) {
	e := focusedFrames(t, &Context{}, "a.png")
	if driveEditor(t, e, "ctrl+l") || images(t, e) != "a.png" {
		t.Fatalf("ctrl+l with no results: %s", images(t, e))
	}
}

// A key image typed by hand that begins with "data:" stays typing until it
// holds its bytes: the first five letters no longer turn it into a summary
// nobody can type on. A whole data URI pasted is shown by its size.
func TestFramesKeyImageTypedAsDataStaysTypeable(t *testing.T) {
	e := focusedFrames(t, nil, "data:image/png;base64")
	if !driveEditor(t, e, "backspace", "type:4") {
		t.Fatal("typing on a key image that begins with data: changed nothing")
	}
	if got, want := images(t, e), "data:image/png;base64"; got != want {
		t.Fatalf("key image %q, want %q", got, want)
	}
	if v := seen(e, 80); strings.Contains(v, "not typed over") || strings.Contains(v, "· 0 B") {
		t.Fatalf("a data: being typed is shown as a data URI:\n%s", v)
	}
	driveEditor(t, e, "ctrl+u")
	e.Update(tea.PasteMsg{Content: "data:image/png;base64,AAAA"})
	if v := seen(e, 80); !strings.Contains(v, "data:image/png;base64 · 3 B") {
		t.Fatalf("a pasted data URI is not shown by its size:\n%s", v)
	}
}
