package forms

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
)

func hasRow(f *Form, name string) (row, bool) {
	for _, r := range f.rows {
		if r.kind == rowField && r.name == name {
			return r, true
		}
	}
	return row{}, false
}

// Switching models keeps every value: the new model's options and defaults
// apply, and what it does not allow is flagged on its field, not dropped.
func TestModelSwitchFlagsWhatTheNewModelRefuses(t *testing.T) {
	f := newTestForm(t, api.OpReference2Video, "svcq2-pro")
	focus(t, f, "images")
	typeText(f, "https://example.com/dancer.png")
	press(f, "enter")
	focus(t, f, "videos")
	typeText(f, "https://example.com/ref.mp4")
	press(f, "enter")
	focus(t, f, "resolution")
	press(f, "left") // 720p -> 540p
	focus(t, f, "prompt")
	typeText(f, "a dancer")
	if !f.check.OK() {
		t.Fatalf("svcq2-pro should accept it: %v", f.check.Broken)
	}
	if got := f.editors["resolution"].Value(); got != "540p" {
		t.Fatalf("resolution %v, want 540p", got)
	}
	if d := lineOf(f, "duration "); !strings.Contains(d, "default 5") {
		t.Fatalf("svcq2-pro's duration default not shown: %q", d)
	}

	focus(t, f, "model")
	// svcq2-pro -> svcq3 -> svcq3-turbo -> svcq3-drama
	press(f, "right", "right", "right")
	if f.model != "svcq3-drama" {
		t.Fatalf("model %s, want svcq3-drama", f.model)
	}
	r, ok := hasRow(f, "videos")
	if !ok || !r.stray {
		t.Fatalf("videos must stay on the form, flagged as a stray value: %v %v", r, ok)
	}
	if v := f.Values()["videos"]; v == nil {
		t.Fatal("the video was dropped")
	}
	if len(f.check.Errors["videos"]) == 0 || len(f.check.Errors["resolution"]) == 0 {
		t.Fatalf("videos and 540p must be flagged for svcq3-drama: %v", f.check.Errors)
	}
	if !strings.Contains(f.check.Errors["resolution"][0], "540p") {
		t.Fatalf("the resolution message must name the value: %v", f.check.Errors["resolution"])
	}
	// The untouched duration follows the new model's default (8 s).
	if d := lineOf(f, "duration "); !strings.Contains(d, "default 8") {
		t.Fatalf("svcq3-drama's duration default not shown: %q", d)
	}
	view := f.View()
	if !strings.Contains(view, "videos") || !strings.Contains(view, "540p") {
		t.Fatalf("flagged values must show:\n%s", view)
	}
	// Removing the stray value and choosing an allowed resolution clears it.
	focus(t, f, "videos")
	press(f, "ctrl+d")
	focus(t, f, "resolution")
	press(f, "right")
	if !f.check.OK() {
		t.Fatalf("after fixing: %v", f.check.Broken)
	}
	// Back to a model that has videos: the field is offered again, empty.
	focus(t, f, "model")
	press(f, "left", "left", "left")
	if _, ok := hasRow(f, "videos"); !ok || f.model != "svcq2-pro" {
		t.Fatalf("svcq2-pro must offer videos again (model %s)", f.model)
	}
}

// A request the catalog refuses is sent only after an explicit
// confirmation that names the rules it breaks.
func TestBrokenRuleNeedsExplicitConfirmation(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	focus(t, f, "prompt")
	typeText(f, "a fox")
	focus(t, f, "duration")
	typeText(f, "30")
	if f.check.OK() {
		t.Fatal("duration 30 must be refused")
	}
	press(f, "ctrl+s")
	if msgs := expect(f, "enter"); len(msgs) != 0 {
		t.Fatalf("enter sent a refused request: %#v", msgs)
	}
	if msgs := expect(f, "ctrl+f"); len(msgs) != 0 || !f.review.confirming {
		t.Fatalf("ctrl+f must ask first: %#v", msgs)
	}
	view := f.View()
	if !strings.Contains(view, "duration") || !strings.Contains(view, "Send a request the catalog refuses?") {
		t.Fatalf("the confirmation must name the broken rule:\n%s", view)
	}
	if msgs := expect(f, "n"); len(msgs) != 0 || f.review.confirming {
		t.Fatalf("n must not send: %#v", msgs)
	}
	expect(f, "ctrl+f")
	msgs := expect(f, "y")
	if len(msgs) != 1 {
		t.Fatalf("y must send: %#v", msgs)
	}
	sub := msgs[0].(SubmitMsg)
	if !sub.Forced || len(sub.Broken) == 0 || canonical(t, sub.Body["duration"]) != "30" {
		t.Fatalf("forced submit %+v", sub)
	}
}

// Fields the catalog does not know are warned about and sent, not blocked.
func TestUnknownFieldsWarnNotBlock(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	f.Apply(map[string]any{"prompt": "a fox", "camera_path": "orbit"})
	syncCheck(f)
	if !f.check.OK() || len(f.check.Warnings) != 1 {
		t.Fatalf("broken %v warnings %v", f.check.Broken, f.check.Warnings)
	}
	if f.check.Body["camera_path"] != "orbit" {
		t.Fatalf("the unknown field is not sent: %v", f.check.Body)
	}
	if _, ok := hasRow(f, "camera_path"); !ok {
		t.Fatal("the unknown field must show on the form")
	}
	f.Apply(map[string]any{"lens": "wide"})
	syncCheck(f)
	if v := f.View(); !strings.Contains(v, "! 2 unknown fields") {
		t.Errorf("the count of unknown fields does not read as words:\n%s", v)
	}
}

// Pause markers are checked as typed and the broken one is pointed at.
func TestPauseMarkersCheckedAsTyped(t *testing.T) {
	f := newTestForm(t, api.OpAudioTTS, "")
	focus(t, f, "text")
	typeText(f, "Hello <#1.555#> world")
	a := f.editors["text"].(*areaEditor)
	if a.pauseErr == nil || a.val[a.pauseErr.Offset:a.pauseErr.Offset+a.pauseErr.Length] != "<#1.555#>" {
		t.Fatalf("pause error %+v", a.pauseErr)
	}
	if v := f.View(); !strings.Contains(v, "two decimals") {
		t.Fatalf("the marker's problem must show:\n%s", v)
	}
	press(f, "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	typeText(f, "<#1.5#> world")
	if a.pauseErr != nil {
		t.Fatalf("fixed text still flagged: %q %+v", a.val, a.pauseErr)
	}
}

// Local files are measured before sending: a small image is refused with
// its size in the message, a missing file is named.
func TestLocalMediaAreCheckedWithTheirFigures(t *testing.T) {
	f := newTestForm(t, api.OpImg2Video, "svcq3-turbo")
	writePNG(t, f.ctx.Dir, "tiny.png", 100, 100)
	focus(t, f, "images")
	typeText(f, "tiny.png")
	press(f, "enter")
	msgs := strings.Join(f.check.Errors["images"], " ")
	if !strings.Contains(msgs, "100") || !strings.Contains(msgs, "128") {
		t.Fatalf("want the measured 100x100 against 128x128: %q", msgs)
	}
	press(f, "up", "ctrl+d")
	typeText(f, "missing.png")
	press(f, "enter")
	if msgs := strings.Join(f.check.Errors["images"], " "); !strings.Contains(msgs, "missing.png: no such file") {
		t.Fatalf("missing file: %q", msgs)
	}
	press(f, "ctrl+u") // a missing file stays in the line, not added: erase it
	writePNG(t, f.ctx.Dir, "ok.png", 640, 480)
	typeText(f, "ok.png")
	press(f, "enter")
	if !f.check.OK() {
		t.Fatalf("a good image refused: %v", f.check.Broken)
	}
	if n := f.check.Media["ok.png"]; n.Text != "png 640×480 · "+api.ByteSize(fileSize(t, filepath.Join(f.ctx.Dir, "ok.png"))) {
		t.Fatalf("measured %q", n.Text)
	}
	if !strings.Contains(f.View(), "png 640×480") {
		t.Fatal("the measured figures must show beside the file")
	}
}

// The whole body is held to 20 MB, with the running total shown.
func TestBodyTotalIsChecked(t *testing.T) {
	f := newTestForm(t, api.OpReference2Video, "svcq3")
	big := "data:image/png;base64," + strings.Repeat("A", 8<<20)
	f.Apply(map[string]any{"prompt": "x", "images": []any{big, big, big}})
	syncCheck(f)
	if len(f.check.Errors["request"]) == 0 || !strings.Contains(f.check.Errors["request"][0], "20 MB") {
		t.Fatalf("a 24 MB body must be refused: %v", f.check.Errors["request"])
	}
	if !strings.Contains(f.View(), "request 24 MB of 20 MB") {
		t.Fatalf("the running total must show:\n%s", f.View())
	}
}

// A premium music video's mode decides whether faces or images are asked for.
func TestPremiumModeDecidesFacesOrImages(t *testing.T) {
	f := newTestForm(t, api.OpPremiumMV, "")
	focus(t, f, "premium_mv_mode")
	press(f, "right") // sing
	if _, ok := hasRow(f, "lip_ref_urls"); !ok {
		t.Fatal("sing asks for the singers' faces")
	}
	if !strings.Contains(f.View(), "lip_ref_urls *") {
		t.Fatal("faces are required for sing")
	}
	press(f, "right", "right") // perform
	if _, ok := hasRow(f, "lip_ref_urls"); ok {
		t.Fatal("perform does not ask for faces")
	}
	if !strings.Contains(f.View(), "images *") {
		t.Fatal("images are required for perform")
	}
}

// Drafts keep everything typed, and a duplicate finds its local files again.
func TestDraftsAndDuplicates(t *testing.T) {
	f := newTestForm(t, api.OpImg2Video, "svcq1")
	img := writePNG(t, f.ctx.Dir, "frame.png", 300, 300)
	focus(t, f, "images")
	typeText(f, "frame.png")
	press(f, "enter")
	focus(t, f, "prompt")
	typeText(f, "waves")
	d := Drafts{Dir: t.TempDir()}
	if err := d.Save(f.Draft()); err != nil {
		t.Fatal(err)
	}
	dr, ok, err := d.Load(api.OpImg2Video)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	g, err := Restore(f.ctx, testStyles(), dr)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, g.Values()) != canonical(t, f.Values()) || g.model != "svcq1" || g.focusedName() != "prompt" {
		t.Fatalf("restored %v focus %s, want %v", g.Values(), g.focusedName(), f.Values())
	}
	if last, ok := d.Last(); !ok || last != api.OpImg2Video {
		t.Fatalf("last draft %v %v", last, ok)
	}

	// Sending remembers where each file came from; history keeps only a
	// placeholder with the file's digest.
	syncCheck(f)
	if err := d.RememberSources(f.check.Sources); err != nil {
		t.Fatal(err)
	}
	_, stripped, _, err := record.StripMedia([]byte(canonical(t, f.check.Body)))
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := jsonDecode(stripped, &req); err != nil {
		t.Fatal(err)
	}
	values := d.Relink(req).(map[string]any)
	if got := values["images"].([]any)[0]; got != img {
		t.Fatalf("the duplicate's image is %v, want the file %s", got, img)
	}
	// A file that changed or vanished stays flagged.
	writePNG(t, f.ctx.Dir, "frame.png", 301, 300)
	values = d.Relink(req).(map[string]any)
	g2 := newTestForm(t, api.OpImg2Video, "")
	g2.Apply(values)
	syncCheck(g2)
	if msgs := strings.Join(g2.check.Errors["images"], " "); !strings.Contains(msgs, "frame.png") || !strings.Contains(msgs, "has changed") || strings.Contains(msgs, "data URI") {
		t.Fatalf("a lost file must be flagged: %q", msgs)
	}
}

// The watermark position is read out in the model's own mapping.
func TestWatermarkPositionFollowsTheModelsMapping(t *testing.T) {
	a := newTestForm(t, api.OpText2Video, "svcq1")
	b := newTestForm(t, api.OpText2Video, "svcq3-pro")
	if got := a.editor("wm_position").Counter(); got != "1 = bottom-right" {
		t.Fatalf("svcq1 default %q", got)
	}
	if got := b.editor("wm_position").Counter(); got != "3 = bottom-right" {
		t.Fatalf("svcq3-pro default %q", got)
	}
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func jsonDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// lineOf is the screen line that starts with a field's label.
func lineOf(f *Form, label string) string {
	for _, l := range strings.Split(ansi.Strip(f.View()), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " ┃"), label) {
			return l
		}
	}
	return ""
}

// A clone must name a new voice: one in the library is refused before
// sending; a local file where the service fetches a URL is explained, once.
func TestCloneChecksTheLibraryAndURLs(t *testing.T) {
	f := newTestForm(t, api.OpAudioClone, "")
	os.WriteFile(filepath.Join(f.ctx.Dir, "me.wav"), []byte("RIFF"), 0o600)
	focus(t, f, "audio_url")
	typeText(f, "me.wav")
	focus(t, f, "voice_id")
	typeText(f, "narrator_01")
	if msgs := strings.Join(f.check.Errors["voice_id"], " "); !strings.Contains(msgs, "already a voice in your library") {
		t.Fatalf("voice_id: %q", msgs)
	}
	// Said once, with why: not again as a value that is no URL.
	if msgs := f.check.Errors["audio_url"]; len(msgs) != 1 || !strings.Contains(msgs[0], "takes no upload") {
		t.Fatalf("audio_url: %q", msgs)
	}
	if n := strings.Count(strings.Join(f.check.Broken, "\n"), "audio_url:"); n != 1 {
		t.Fatalf("the broken rules name audio_url %d times: %q", n, f.check.Broken)
	}
	press(f, "backspace")
	typeText(f, "9")
	if len(f.check.Errors["voice_id"]) != 0 {
		t.Fatalf("a new id is fine: %v", f.check.Errors["voice_id"])
	}
}

// Speech picks a voice from the library with ctrl+l, then a system voice
// marked as one, or any typed id.
func TestSpeechVoiceFromTheLibrary(t *testing.T) {
	f := newTestForm(t, api.OpAudioTTS, "")
	focus(t, f, "voice_setting_voice_id")
	press(f, "ctrl+l")
	if got := f.Values()["voice_setting_voice_id"]; got != "narrator_01" {
		t.Fatalf("first library voice: %v", got)
	}
	press(f, "ctrl+l")
	if got := f.Values()["voice_setting_voice_id"]; got != "narrator_02" {
		t.Fatalf("next library voice: %v", got)
	}
	if !strings.Contains(ansi.Strip(f.View()), "cloned voice 2 of 2") {
		t.Fatal("the library voice must be named as one beside the field")
	}
	press(f, "ctrl+l")
	if got := f.Values()["voice_setting_voice_id"]; got != catalog.SystemVoices[0].ID {
		t.Fatalf("after the library, the system voices: %v", got)
	}
	if !strings.Contains(ansi.Strip(f.View()), "system voice: "+catalog.SystemVoices[0].Description) {
		t.Fatal("a system voice must be marked as one beside the field")
	}
}

// A path typed into a list and not added with enter is not dropped: the
// check reads it, and leaving the field adds it (tab on a whole file goes
// on, once its folder's listing shows it is one).
func TestPendingListItemIsKept(t *testing.T) {
	f := newTestForm(t, api.OpReference2Image, "svcq2")
	writePNG(t, f.ctx.Dir, "a.png", 512, 512)
	focus(t, f, "images")
	for _, r := range "a.png" {
		deliver(f, keyPress(string(r)))
	}
	if n := len(f.check.Body["images"].([]any)); n != 1 {
		t.Fatalf("the typed path is not in the request: %v", f.check.Body)
	}
	deliver(f, keyPress("tab"))
	if got := f.editors["images"].(*listEditor).items; len(got) != 1 || got[0] != "a.png" {
		t.Fatalf("leaving the field must add the path: %v", got)
	}
}

// Numbers are read as a person means them and sent as JSON numbers; what
// is not a number is refused with the text typed.
func TestTypedNumbers(t *testing.T) {
	for typed, want := range map[string]any{
		"7": json.Number("7"), "7.": json.Number("7"), ".5": json.Number("0.5"), "07": json.Number("7"),
		"+5": json.Number("5"), "5.0": json.Number("5.0"), "-1": json.Number("-1"), "1e1": json.Number("1e1"),
		"NaN": "NaN", "abc": "abc", "0x10": "0x10", "Inf": "Inf",
	} {
		if got := number(typed); got != want {
			t.Errorf("%q: got %#v, want %#v", typed, got, want)
		}
	}
	f := newTestForm(t, api.OpTiming2Audio, "")
	focus(t, f, "duration")
	typeText(f, "7.")
	if f.check.Size == 0 || canonical(t, f.check.Body["duration"]) != "7" {
		t.Fatalf("7. must be sent as 7: size %d, %v", f.check.Size, f.check.Body["duration"])
	}
}

// When images past the limit will be uploaded (the uploads setting), the
// body's size is a note, not a refusal.
func TestBodyTotalGivesWayToUploads(t *testing.T) {
	uploaded := func(api.Operation, map[string]any, int) string { return "" } // as the studio's rule answers with uploads on
	ctx := &Context{Dir: t.TempDir(), SizeRule: uploaded}
	f, err := New(ctx, testStyles(), api.OpReference2Video, "svcq3")
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(100, 40)
	f.Init()
	big := "data:image/png;base64," + strings.Repeat("A", 8<<20)
	f.Apply(map[string]any{"prompt": "x", "images": []any{big, big, big}})
	syncCheck(f)
	if len(f.check.Errors["request"]) != 0 || slices.ContainsFunc(f.check.Broken, func(m string) bool { return strings.Contains(m, "20 MB") }) {
		t.Fatalf("the size must not refuse a body whose images are uploaded: %v", f.check.Errors["request"])
	}
	if !slices.ContainsFunc(f.check.Warnings, func(m string) bool { return strings.Contains(m, "its 3 images will be uploaded first") }) {
		t.Errorf("warnings %v", f.check.Warnings)
	}
}
