package forms

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"clapper/api/catalog"
)

// bareStyles are Styles without colour, so views read as plain text.
func bareStyles() *Styles {
	p := lipgloss.NewStyle()
	s := &Styles{Title: p, Label: p, Focused: p, Bar: p, Value: p, Default: p, Dim: p, Key: p, Error: p,
		Warning: p, OK: p, Section: p, Selected: p, Track: p, Fill: p, Overlap: p}
	s.Build()
	return s
}

// keyOf builds a key press the way a terminal reports it.
func keyOf(s string) tea.KeyPressMsg {
	named := map[string]tea.KeyPressMsg{
		"enter": {Code: tea.KeyEnter}, "up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown},
		"left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
		"shift+left": {Code: tea.KeyLeft, Mod: tea.ModShift}, "shift+right": {Code: tea.KeyRight, Mod: tea.ModShift},
		"pgup": {Code: tea.KeyPgUp}, "pgdown": {Code: tea.KeyPgDown}, "space": {Code: tea.KeySpace, Text: " "},
		"backspace": {Code: tea.KeyBackspace}, "tab": {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift}, "esc": {Code: tea.KeyEscape},
	}
	if k, ok := named[s]; ok {
		return k
	}
	if c, ok := strings.CutPrefix(s, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: []rune(c)[0], Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// driveEditor sends keys to an editor: names of keys, or "type:" and text.
func driveEditor(t testing.TB, e editor, keys ...string) (changed bool) {
	t.Helper()
	for _, k := range keys {
		if text, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range text {
				_, c := e.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
				changed = changed || c
			}
			continue
		}
		_, c := e.Update(keyOf(k))
		changed = changed || c
	}
	return changed
}

var subjectsField = catalog.Field{Name: "subjects", Kind: catalog.KindSubjects, MinItems: 1, MaxItems: 7}

func TestSubjectsEditorByKeys(t *testing.T) {
	ctx := &Context{Voices: []string{"alice_voice", "bob_voice"}, Model: "svcq2"}
	e := newSubjectsEditor(ctx, subjectsField)
	e.Focus()
	if !driveEditor(t, e, "ctrl+n", "type:cat", "down", "type:cat.png", "down", "type:https://x.test/c.png",
		"down", "down", "ctrl+l", "down", "type:srv-1", "down") {
		t.Fatal("no change reported")
	}
	// The cursor is on "add subject": enter adds one. "up" from its name
	// lands on the first subject's last part (server id), one more on its
	// voice, which ctrl+l moves on to the next cloned voice.
	driveEditor(t, e, "enter", "type:dog", "up", "up", "ctrl+l")
	want := []any{
		map[string]any{"name": "cat", "images": []any{"cat.png", "https://x.test/c.png"}, "voice_id": "bob_voice", "server_id": "srv-1"},
		map[string]any{"name": "dog"},
	}
	if got := e.Value(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Value:\n got %#v\nwant %#v", got, want)
	}
	if got := e.Names(); !reflect.DeepEqual(got, []string{"cat", "dog"}) {
		t.Errorf("Names = %v", got)
	}
	if got := e.Counter(); got != "2 of 1-7" {
		t.Errorf("Counter = %q", got)
	}
}

func TestSubjectsVoiceCycles(t *testing.T) {
	ctx := &Context{Voices: []string{"alice_voice", "bob_voice"}}
	e := newSubjectsEditor(ctx, subjectsField)
	e.Set([]any{map[string]any{"name": "cat", "voice_id": "svc_narrator"}})
	e.Focus()
	driveEditor(t, e, "down", "down") // name, image slot, voice
	var got []string
	for range 2 + len(catalog.SystemVoices) + 2 {
		driveEditor(t, e, "ctrl+l")
		got = append(got, e.subjects[0].voice)
	}
	want := []string{"alice_voice", "bob_voice"}
	for _, v := range catalog.SystemVoices {
		want = append(want, v.ID)
	}
	want = append(want, "", "alice_voice")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cycle = %q, want %q", got, want)
	}
	driveEditor(t, e, "ctrl+u", "type:svc_other")
	if v := e.subjects[0].voice; v != "svc_other" {
		t.Errorf("typed voice = %q", v)
	}
}

func TestSubjectsAtMostThreeImages(t *testing.T) {
	e := newSubjectsEditor(&Context{}, subjectsField)
	e.Focus()
	driveEditor(t, e, "ctrl+n", "type:cat")
	for _, img := range []string{"a.png", "b.png", "c.png", "d.png"} {
		driveEditor(t, e, "down", "type:"+img)
	}
	s := e.subjects[0]
	if !reflect.DeepEqual(s.images, []string{"a.png", "b.png", "c.png"}) {
		t.Fatalf("images = %q", s.images)
	}
	// The fourth "down" left the images for the voice: d.png went there.
	if s.voice != "d.png" {
		t.Errorf("voice = %q", s.voice)
	}
	if v := strings.Join(viewLines(e, 76), "\n"); !strings.Contains(v, "images 3/3") {
		t.Errorf("no images 3/3 in\n%s", v)
	}
	// Four images from a draft are kept, shown over the limit.
	e.Set([]any{map[string]any{"name": "x", "images": []any{"1", "2", "3", "4"}}})
	if v := strings.Join(viewLines(e, 76), "\n"); !strings.Contains(v, "images 4/3") {
		t.Errorf("no images 4/3 in\n%s", v)
	}
	if got := e.Value().([]any)[0].(map[string]any)["images"]; len(got.([]any)) != 4 {
		t.Errorf("a draft's fourth image was dropped: %v", got)
	}
}

func TestSubjectsRoundTrip(t *testing.T) {
	data := "data:image/png;base64," + strings.Repeat("QUJD", 2000)
	in := []any{
		map[string]any{"name": "cat", "images": []any{"cat.png", data}, "videos": []any{"clip.mp4"},
			"voice_id": "v1", "server_id": "s1", "mood": "calm"},
		map[string]any{"name": 42.0, "images": []any{1.0}},
		"not a subject",
		map[string]any{},
	}
	e := newSubjectsEditor(&Context{Model: proModel}, subjectsField)
	e.Set(in)
	if got := e.Value(); !reflect.DeepEqual(got, in) {
		t.Fatalf("Set→Value:\n got %#v\nwant %#v", got, in)
	}
	e.Set(nil)
	if got := e.Value(); got != nil {
		t.Errorf("empty Value = %#v, want nil", got)
	}
	// A single image string reads as a list of one (as Normalize reads it).
	e.Set([]any{map[string]any{"name": "a", "images": "a.png"}})
	if got := e.Value().([]any)[0].(map[string]any)["images"]; !reflect.DeepEqual(got, []any{"a.png"}) {
		t.Errorf("images = %#v", got)
	}
}

func TestSubjectsRemoveAndUndo(t *testing.T) {
	e := newSubjectsEditor(&Context{}, subjectsField)
	e.Set([]any{map[string]any{"name": "a"}, map[string]any{"name": "b"}, map[string]any{"name": "c"}})
	e.Focus()
	driveEditor(t, e, "pgdown", "ctrl+x")
	if got := e.Names(); !reflect.DeepEqual(got, []string{"a", "c"}) {
		t.Fatalf("after remove: %v", got)
	}
	if v := strings.Join(viewLines(e, 76), "\n"); !strings.Contains(v, "removed subject 2 “b” · ctrl+z brings it back") {
		t.Errorf("removal not announced:\n%s", v)
	}
	driveEditor(t, e, "ctrl+z")
	if got := e.Names(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("after undo: %v", got)
	}
	// A data URI is not typed over; backspace removes it, undoably.
	e.Set([]any{map[string]any{"name": "a", "images": []any{"data:image/png;base64,QUJD"}}})
	driveEditor(t, e, "down", "type:x")
	if e.subjects[0].images[0] != "data:image/png;base64,QUJD" {
		t.Fatalf("typing changed a data URI: %q", e.subjects[0].images)
	}
	driveEditor(t, e, "backspace")
	if len(e.subjects[0].images) != 0 {
		t.Fatalf("backspace kept %q", e.subjects[0].images)
	}
	driveEditor(t, e, "ctrl+z")
	if len(e.subjects[0].images) != 1 {
		t.Fatalf("undo lost the image")
	}
}

func TestSubjectsLimits(t *testing.T) {
	f := subjectsField
	f.MaxItems = 6
	e := newSubjectsEditor(&Context{Model: proModel}, f)
	var many []any
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		many = append(many, map[string]any{"name": n})
	}
	many = append(many, map[string]any{"name": "v", "videos": []any{"v.mp4"}})
	e.Set(many)
	e.Focus()
	driveEditor(t, e, "ctrl+n")
	if len(e.subjects) != 6 {
		t.Fatalf("added past the model's 6 subjects")
	}
	v := strings.Join(viewLines(e, 136), "\n")
	for _, want := range []string{"subjects 6 of 6", "image/text 5 of 4", "video 1 of 2", "svcq2-pro takes at most 6 subjects"} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in\n%s", want, v)
		}
	}
	// Another model keeps the video, flagged, and offers no video slot.
	e.ctx.Model = "svcq2"
	e.SetField(subjectsField)
	v = strings.Join(viewLines(e, 136), "\n")
	if !strings.Contains(v, "(svcq2-pro only)") || len(e.Value().([]any)) != 6 {
		t.Errorf("video subject not kept and flagged:\n%s", v)
	}
}

func TestSubjectsOwnsKey(t *testing.T) {
	e := newSubjectsEditor(&Context{}, subjectsField)
	e.Set([]any{map[string]any{"name": "a"}})
	e.Focus()
	for _, k := range []string{"tab", "shift+tab", "ctrl+s", "esc"} {
		if e.OwnsKey(keyOf(k)) {
			t.Errorf("claims the form's %s", k)
		}
	}
	if e.OwnsKey(keyOf("up")) {
		t.Error("claims up at its top: the form needs it to reach the field above")
	}
	if !e.OwnsKey(keyOf("down")) || !e.OwnsKey(keyOf("enter")) {
		t.Error("does not claim down or enter inside the list")
	}
}

// viewLines renders focused and checks no line is wider than asked.
func viewLines(e editor, width int) []string {
	lines := strings.Split(ansi.Strip(e.View(bareStyles(), width, true)), "\n")
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			lines[i] = "TOO WIDE " + l
		}
	}
	return lines
}

func checkWidth(t *testing.T, view string, width int) {
	t.Helper()
	for _, l := range strings.Split(view, "\n") {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line of %d cells at width %d: %q", w, width, l)
		}
	}
}

func sampleSubjects() []any {
	return []any{
		map[string]any{"name": "cat", "images": []any{"./photos/cat-front.png", "https://cdn.example.com/refs/cat-side.jpg"},
			"voice_id": "warm_narrator_01", "server_id": "srv-5512"},
		map[string]any{"name": "dog", "images": []any{"data:image/png;base64," + strings.Repeat("QUJD", 4000)}, "videos": []any{"dog.mp4"}},
		map[string]any{"name": "cat", "mood": "calm"},
		map[string]any{"images": []any{"a.png", "b.png", "c.png", "d.png"}},
	}
}

// TestSubjectsView renders the editor at the form's two widths, focused on
// the second subject and blurred; read testdata/TestSubjectsView/* by eye.
func TestSubjectsView(t *testing.T) {
	for _, width := range []int{76, 136} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			e := newSubjectsEditor(&Context{Model: proModel, Voices: []string{"warm_narrator_01"}}, catalog.Field{Name: "subjects", MinItems: 1, MaxItems: 6})
			e.Set(sampleSubjects())
			e.Focus()
			st := bareStyles()
			var out strings.Builder
			frame := func(title string, focused bool) {
				v := ansi.Strip(e.View(st, width, focused))
				checkWidth(t, v, width)
				fmt.Fprintf(&out, "── %s · %s\n%s\n\n", title, e.Counter(), v)
			}
			driveEditor(t, e, "down", "down", "down")
			frame("first subject, on its empty image slot", true)
			driveEditor(t, e, "pgdown", "down")
			frame("second subject, on its data URI", true)
			driveEditor(t, e, "pgdown", "ctrl+x")
			frame("third removed", true)
			driveEditor(t, e, "ctrl+z", "down", "down", "down", "down", "down")
			frame("third back, on its unknown key", true)
			e.Blur()
			frame("blurred", false)
			golden.RequireEqual(t, out.String())
		})
	}
}

// BenchmarkSubjectsEditor7 is one key and one frame of the largest form:
// reference2video with seven subjects.
func BenchmarkSubjectsEditor7(b *testing.B) {
	var subjects []any
	for i := range 7 {
		subjects = append(subjects, map[string]any{"name": "subject" + fmt.Sprint(i), "images": []any{"a.png", "https://x.test/b.png"},
			"voice_id": "voice" + fmt.Sprint(i), "server_id": "srv" + fmt.Sprint(i)})
	}
	e := newSubjectsEditor(&Context{Voices: []string{"voice1", "voice2"}}, subjectsField)
	e.Set(subjects)
	e.Focus()
	st := bareStyles()
	st.Value = lipgloss.NewStyle().Foreground(lipgloss.Color("#d0d0d0"))
	st.Error = lipgloss.NewStyle().Foreground(lipgloss.Color("#ff5555")).Bold(true)
	st.Focused = lipgloss.NewStyle().Foreground(lipgloss.Color("#5f87ff"))
	keys := []tea.KeyPressMsg{keyOf("down"), keyOf("x"), keyOf("backspace"), keyOf("down")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := keys[i%len(keys)]
		if e.cur == len(e.subjects) {
			e.jump(0)
		}
		e.Update(k)
		_ = e.View(st, 76, true)
	}
}

// The server id part picks the library's stored subjects by name: a
// subject without a name takes the stored one's, then "none" again.
func TestSubjectsPickStoredByName(t *testing.T) {
	ctx := &Context{Subjects: []StoredSubject{{Name: "mia", ID: "sbs1"}, {Name: "bob", ID: "sbs2"}}}
	e := newSubjectsEditor(ctx, subjectsField)
	e.Set([]any{map[string]any{}})
	e.Focus()
	driveEditor(t, e, "down", "down", "down") // name, image slot, voice, server id
	var got []string
	for range 3 {
		driveEditor(t, e, "ctrl+l")
		got = append(got, e.subjects[0].name+"="+e.subjects[0].server)
	}
	if want := []string{"mia=sbs1", "bob=sbs2", "bob="}; !reflect.DeepEqual(got, want) {
		t.Errorf("picks = %q, want %q", got, want)
	}
	driveEditor(t, e, "ctrl+l")
	if v := e.Value(); !strings.Contains(fmt.Sprint(v), "server_id:sbs1") {
		t.Errorf("value %v: want the stored subject's server_id", v)
	}
}

// An image typed by hand that begins with "data:" stays typing until it
// holds its bytes, as a key frame's does.
func TestSubjectImageTypedAsDataStaysTypeable(t *testing.T) {
	e := newSubjectsEditor(&Context{Model: "svcq2"}, subjectsField)
	e.Focus()
	driveEditor(t, e, "ctrl+n", "type:cat", "down", "type:data:image/png;base64", "backspace", "type:4")
	if got := e.subjects[0].images; len(got) != 1 || got[0] != "data:image/png;base64" {
		t.Fatalf("the image typed: %q, want data:image/png;base64", got)
	}
}
