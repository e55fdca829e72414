package forms

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"

	"clapper/api"
	"clapper/assets"
	exteditor "clapper/internal/editor"
)

// A prompt takes ctrl+j as a new line; enter still moves on.
func TestPromptNewLineKey(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	focus(t, f, "prompt")
	typeText(f, "one")
	press(f, "ctrl+j")
	typeText(f, "two")
	if got := f.Values()["prompt"]; got != "one\ntwo" {
		t.Fatalf("prompt %q, want a new line between the words", got)
	}
	press(f, "enter")
	if f.focusedName() == "prompt" {
		t.Fatal("enter must leave the prompt")
	}
}

// ctrl+e hands the text to $EDITOR in a command (nothing is run in
// Update); what the editor left replaces the text, and a failed editor
// keeps the text and says why.
func TestPromptEditorKey(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	focus(t, f, "prompt")
	typeText(f, "draft")
	cmd := f.Update(keyPress("ctrl+e"))
	if cmd == nil {
		t.Fatal("ctrl+e started nothing")
	}
	if got := f.Values()["prompt"]; got != "draft" {
		t.Fatalf("ctrl+e changed the text before the editor ran: %q", got)
	}
	rev := f.Revision()
	f.Update(exteditor.EditedMsg{ID: "prompt", Text: "from\nthe editor"})
	if got := f.Values()["prompt"]; got != "from\nthe editor" {
		t.Fatalf("prompt %q after the editor", got)
	}
	if f.Revision() == rev {
		t.Fatal("the editor's text must count as a change (checked, kept as a draft)")
	}
	f.Update(exteditor.EditedMsg{ID: "prompt", Err: errors.New("exec: \"nosuch\": not found")})
	if got := f.Values()["prompt"]; got != "from\nthe editor" {
		t.Fatalf("a failed editor lost the text: %q", got)
	}
	if !strings.Contains(f.View(), "$EDITOR: exec") {
		t.Fatalf("the editor's failure is not shown:\n%s", f.View())
	}
}

// A file refused by one field is taken by a field it suits: the cache
// keeps what the file holds, never a field's verdict; a file rewritten is
// read again.
func TestFileVerdictFollowsTheField(t *testing.T) {
	f := newTestForm(t, api.OpReference2Video, "svcq2-pro")
	if err := os.WriteFile(filepath.Join(f.ctx.Dir, "clip.mp4"), assets.Video("16:9"), 0o644); err != nil {
		t.Fatal(err)
	}
	focus(t, f, "images")
	typeText(f, "clip.mp4")
	press(f, "enter")
	if msgs := strings.Join(f.check.Errors["images"], " "); !strings.Contains(msgs, "not an image") {
		t.Fatalf("a video in images must be refused: %q", msgs)
	}
	focus(t, f, "videos")
	typeText(f, "clip.mp4")
	press(f, "enter")
	if msgs := f.check.Errors["videos"]; len(msgs) != 0 {
		t.Fatalf("the video field refuses the video because the image field did: %q", msgs)
	}
	if got := f.check.Body["videos"].([]any)[0].(string); !strings.HasPrefix(got, "data:video/mp4;base64,") {
		t.Fatalf("the video is sent as %.40q", got)
	}

	// A file that is not yet what its name says, then written properly.
	still := filepath.Join(f.ctx.Dir, "still.png")
	os.WriteFile(still, []byte("still being exported"), 0o644)
	focus(t, f, "images")
	press(f, "up", "ctrl+d")
	typeText(f, "still.png")
	press(f, "enter")
	if len(f.check.Errors["images"]) == 0 {
		t.Fatal("a PNG with no picture in it must be refused")
	}
	writePNG(t, f.ctx.Dir, "still.png", 640, 480)
	later := time.Now().Add(time.Minute)
	os.Chtimes(still, later, later)
	typeText(f, " ")
	press(f, "backspace")
	if msgs := f.check.Errors["images"]; len(msgs) != 0 {
		t.Fatalf("the file written anew is judged by its old content: %q", msgs)
	}
}

// In a media list, nothing typed is lost: typing with an item selected
// goes on in the line, and ctrl+d removes items, never the typed text;
// a key that does nothing says so.
func TestMediaListKeepsEveryKeystroke(t *testing.T) {
	f := newTestForm(t, api.OpReference2Image, "svcq2")
	writePNG(t, f.ctx.Dir, "a.png", 512, 512)
	focus(t, f, "images")
	typeText(f, "a.png")
	press(f, "enter")
	typeText(f, "b.pn")
	press(f, "up") // selects a.png
	typeText(f, "g")
	list := f.editors["images"].(*listEditor)
	if list.line.val != "b.png" {
		t.Fatalf("typing on a selected item was lost: line %q", list.line.val)
	}
	press(f, "up", "ctrl+d")
	if len(list.items) != 0 || list.line.val != "b.png" {
		t.Fatalf("ctrl+d on a.png: items %v, line %q", list.items, list.line.val)
	}
	press(f, "ctrl+d")
	if list.line.val != "b.png" {
		t.Fatalf("ctrl+d threw the typed text away: %q", list.line.val)
	}
	if !strings.Contains(f.View(), "ctrl+d removes a listed item") {
		t.Fatalf("ctrl+d doing nothing must say so:\n%s", f.View())
	}
	press(f, "backspace")
	if strings.Contains(f.View(), "ctrl+d removes") {
		t.Fatal("the note stays past the next key")
	}
}

// ↑/↓ mean the same in every field: a row at a time, on to the next field
// past the first or last row; a text of several lines is no trap.
func TestArrowsWalkRowsThenFields(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	focus(t, f, "prompt")
	typeText(f, "one")
	press(f, "ctrl+j")
	typeText(f, "two")
	press(f, "up")
	if f.focusedName() != "prompt" {
		t.Fatalf("↑ on the second line must go to the first, not to %q", f.focusedName())
	}
	press(f, "up")
	if f.focusedName() != "model" {
		t.Fatalf("↑ on the first line must go to the field above, not %q", f.focusedName())
	}
	press(f, "down", "down")
	if f.focusedName() != "prompt" {
		t.Fatalf("↓ from the first line must reach the second, not %q", f.focusedName())
	}
	press(f, "down")
	if f.focusedName() != "duration" {
		t.Fatalf("↓ on the last line must go to the next field, not %q", f.focusedName())
	}
	// A letter matching no option is not swallowed silently.
	focus(t, f, "model")
	typeText(f, "z")
	if !strings.Contains(f.View(), `"z" does nothing in model`) {
		t.Fatalf("a letter the model field ignores must say so:\n%s", f.View())
	}
}

// A sent request ends its operation's draft and is kept as its last sent;
// a form offers it on ctrl+p only when told there is one.
func TestSentRequestEndsTheDraft(t *testing.T) {
	d := Drafts{Dir: t.TempDir()}
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	if !f.Blank() {
		t.Fatal("a new form holds nothing to keep")
	}
	focus(t, f, "prompt")
	typeText(f, "a fox")
	if f.Blank() {
		t.Fatal("a typed prompt is something to keep")
	}
	if err := d.Save(f.Draft()); err != nil {
		t.Fatal(err)
	}
	if err := d.Sent(f.Draft()); err != nil {
		t.Fatal(err)
	}
	if d.Has()[api.OpText2Video] {
		t.Fatal("a sent request is still a draft")
	}
	sent, ok, err := d.LoadSent(api.OpText2Video)
	if !ok || err != nil || sent.Values["prompt"] != "a fox" {
		t.Fatalf("last sent: %v %v %v", sent, ok, err)
	}
	// A form without a prompt field offers ctrl+p only with a last sent
	// request, and asks for it alone (Field "").
	fresh := newTestForm(t, api.OpTemplateStory, "")
	if cmd := fresh.Update(keyPress("ctrl+p")); cmd != nil {
		t.Fatal("ctrl+p with nothing sent and no prompt must do nothing")
	}
	fresh.OfferRecall(true)
	cmd := fresh.Update(keyPress("ctrl+p"))
	if cmd == nil {
		t.Fatal("ctrl+p asked for nothing")
	}
	if msg, ok := cmd().(RecallMsg); !ok || msg.Op != api.OpTemplateStory || msg.Field != "" {
		t.Fatalf("ctrl+p sent %#v", msg)
	}
}

// In a form with a prompt, ctrl+p asks for earlier prompts for the
// focused prompt field (or the form's first one), with what it holds.
func TestCtrlPAsksForEarlierPrompts(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	if !strings.Contains(helpText(f.ShortHelp()), "ctrl+p earlier prompts") {
		t.Fatalf("a fresh form with a prompt must offer earlier prompts: %s", helpText(f.ShortHelp()))
	}
	focus(t, f, "prompt")
	typeText(f, "a fox")
	cmd := f.Update(keyPress("ctrl+p"))
	if cmd == nil {
		t.Fatal("ctrl+p asked for nothing")
	}
	if msg, ok := cmd().(RecallMsg); !ok || msg.Field != "prompt" || msg.Text != "a fox" {
		t.Fatalf("ctrl+p sent %#v", msg)
	}
	speech := newTestForm(t, api.OpAudioTTS, "")
	if msg, ok := speech.Update(keyPress("ctrl+p"))().(RecallMsg); !ok || msg.Field != "text" {
		t.Fatalf("ctrl+p in speech sent %#v", msg)
	}
}

// The input follows the model's field: svcq2-pro's aspect_ratio takes any
// W:H as text, svcq4-preview's is a fixed list; the value typed stays.
func TestWidgetFollowsTheModelsFieldKind(t *testing.T) {
	f := newTestForm(t, api.OpReference2Video, "svcq2-pro")
	if _, ok := f.editors["aspect_ratio"].(*lineEditor); !ok {
		t.Fatalf("svcq2-pro's aspect_ratio is a %T, want text", f.editors["aspect_ratio"])
	}
	focus(t, f, "aspect_ratio")
	typeText(f, "9:16")
	focus(t, f, "model")
	for i := 0; f.model != "svcq4-preview" && i < 10; i++ {
		press(f, "right")
	}
	c, ok := f.editors["aspect_ratio"].(*choiceEditor)
	if !ok {
		t.Fatalf("svcq4-preview's aspect_ratio is a %T, want its list", f.editors["aspect_ratio"])
	}
	if c.Value() != "9:16" {
		t.Fatalf("the ratio typed was lost: %v", c.Value())
	}
	if !strings.Contains(lineOf(f, "aspect_ratio"), "[9:16]") {
		t.Fatalf("the list shows the ratio chosen: %q", lineOf(f, "aspect_ratio"))
	}
	focus(t, f, "model")
	for i := 0; f.model != "svcq2-pro" && i < 10; i++ {
		press(f, "right")
	}
	if _, ok := f.editors["aspect_ratio"].(*lineEditor); !ok || f.Values()["aspect_ratio"] != "9:16" {
		t.Fatalf("back on svcq2-pro: %T %v", f.editors["aspect_ratio"], f.Values()["aspect_ratio"])
	}
}

// The label column does not move when the model changes.
func TestLabelColumnStaysAcrossModels(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	col := strings.Index(lineOf(f, "duration "), "default")
	focus(t, f, "model")
	for _, m := range []string{"right", "right", "right"} {
		press(f, m)
		if got := strings.Index(lineOf(f, "duration "), "default"); got != col {
			t.Fatalf("on %s the values start at %d, on svcq3-pro at %d", f.model, got, col)
		}
	}
}

// A path no file answers to is not added to a list: it stays in the line
// to be corrected, and enter says why.
func TestMissingFileIsNotAddedToAList(t *testing.T) {
	f := newTestForm(t, api.OpReference2Image, "svcq2")
	focus(t, f, "images")
	typeText(f, "nosuch.png")
	press(f, "enter")
	list := f.editors["images"].(*listEditor)
	if len(list.items) != 0 || list.line.val != "nosuch.png" {
		t.Fatalf("a missing file was added: items %v, line %q", list.items, list.line.val)
	}
	if !strings.Contains(f.View(), "not added: no such file nosuch.png") {
		t.Fatalf("enter must say why nothing was added:\n%s", f.View())
	}
	press(f, "tab")
	if len(list.items) != 0 {
		t.Fatalf("leaving the field added the missing file: %v", list.items)
	}
	writePNG(t, f.ctx.Dir, "nosuch.png", 512, 512)
	focus(t, f, "images")
	typeText(f, " ")
	press(f, "backspace", "enter")
	if len(list.items) != 1 {
		t.Fatalf("the file, once there, must be added: %v (line %q)", list.items, list.line.val)
	}
}

// The file picker: g/G go to the ends, / filters as typed, and the next
// picker opens in the folder the last file came from, in any form.
func TestPickerEndsFilterAndLastFolder(t *testing.T) {
	f := newTestForm(t, api.OpReference2Image, "svcq2")
	shots := filepath.Join(f.ctx.Dir, "shots")
	os.Mkdir(shots, 0o755)
	for _, n := range []string{"beach.png", "cat.png", "city.png", "dog.png"} {
		writePNG(t, shots, n, 256, 256)
	}
	focus(t, f, "images")
	expect(f, "ctrl+o")
	for i := 0; i < len(f.picker.entries) && f.picker.entries[f.picker.cursor].name != "shots"; i++ {
		press(f, "down")
	}
	expect(f, "enter")
	if f.picker.dir != shots || len(f.picker.entries) != 4 {
		t.Fatalf("the shots folder: %s %v", f.picker.dir, f.picker.entries)
	}
	press(f, "G")
	if f.picker.cursor != 3 {
		t.Fatalf("G: cursor %d", f.picker.cursor)
	}
	press(f, "g")
	if f.picker.cursor != 0 {
		t.Fatalf("g: cursor %d", f.picker.cursor)
	}
	press(f, "/")
	typeText(f, "ci")
	if got := f.picker.shown(); len(got) != 1 || got[0].name != "city.png" {
		t.Fatalf("filter ci keeps %v", got)
	}
	if !strings.Contains(f.View(), "1 of 4") {
		t.Fatalf("the filter shows what it keeps:\n%s", f.View())
	}
	expect(f, "enter")
	if got := f.editors["images"].(*listEditor).items; len(got) != 1 || !strings.HasSuffix(got[0], "city.png") {
		t.Fatalf("enter on the one entry left picks it: %v", got)
	}
	other := New
	g, err := other(f.ctx, testStyles(), api.OpImg2Video, "")
	if err != nil {
		t.Fatal(err)
	}
	g.SetSize(100, 40)
	focus(t, g, "images")
	expect(g, "ctrl+o")
	if g.picker.dir != shots {
		t.Fatalf("another form's picker opens in %s, not the last folder used", g.picker.dir)
	}
}

// A list filled to the model's limit by enter moves on: what is typed next
// goes to the next field, not into the full list as an item too many.
func TestFullListMovesOn(t *testing.T) {
	f := newTestForm(t, api.OpImg2Video, "svcq1")
	writePNG(t, f.ctx.Dir, "a.png", 512, 512)
	focus(t, f, "images")
	list := f.editors["images"].(*listEditor)
	if list.f.MaxItems != 1 {
		t.Fatalf("img2video svcq1 takes %d images; this test wants a list of one", list.f.MaxItems)
	}
	typeText(f, "a.png")
	press(f, "enter")
	if f.focusedName() == "images" {
		t.Fatalf("the full list kept the focus:\n%s", f.View())
	}
	next := f.focusedName()
	typeText(f, "x")
	if len(list.items) != 1 || list.line.val != "" {
		t.Errorf("typing after the list was full reached it: items %v, line %q (focus on %s)", list.items, list.line.val, next)
	}
}

// helpText is a help line's keys and descriptions, as a help bar shows them.
func helpText(bs []key.Binding) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, " · ")
}
