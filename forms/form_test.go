package forms

import (
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

func testStyles() *Styles {
	p := lipgloss.NewStyle()
	s := &Styles{Title: p, Label: p, Focused: p, Bar: p, Value: p, Default: p, Dim: p, Key: p,
		Error: p, Warning: p, OK: p, Section: p, Selected: p, Track: p, Fill: p, Overlap: p}
	s.Build()
	return s
}

func newTestForm(t *testing.T, op api.Operation, model string) *Form {
	t.Helper()
	ctx := &Context{Dir: t.TempDir(), Voices: []string{"narrator_01", "narrator_02"}}
	f, err := New(ctx, testStyles(), op, model)
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(100, 40)
	f.Init()
	syncCheck(f)
	return f
}

// key builds the key press a terminal sends for a name such as "tab",
// "shift+tab", "ctrl+s" or a single character.
func keyPress(name string) tea.KeyPressMsg {
	named := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"backspace": tea.KeyBackspace, "space": tea.KeySpace, "pgdown": tea.KeyPgDown}
	if mod, rest, ok := strings.Cut(name, "+"); ok && len(rest) > 0 {
		k := keyPress(rest)
		k.Text = ""
		switch mod {
		case "ctrl":
			k.Mod |= tea.ModCtrl
		case "shift":
			k.Mod |= tea.ModShift
		case "alt":
			k.Mod |= tea.ModAlt
		}
		return k
	}
	if r, ok := named[name]; ok {
		return tea.KeyPressMsg{Code: r}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// settle runs what a command produces that the form consumes (checks,
// directory listings) and returns the messages meant for the page.
func settle(f *Form, cmd tea.Cmd) []tea.Msg {
	var out []tea.Msg
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		if isBlink(c) {
			return // a real timer, not the form's business here
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(hangGuard):
			panic("a form's command never returned")
		}
		switch m := msg.(type) {
		case tea.BatchMsg:
			for _, c := range m {
				run(c)
			}
		case checkedMsg, pickedMsg:
			run(f.Update(m))
		case nil:
		default:
			out = append(out, m)
		}
	}
	run(cmd)
	return out
}

// hangGuard bounds the wait for a command: a check may take a while in a
// -race run on a loaded machine, and was dropped as a timer when it did.
const hangGuard = 30 * time.Second

// isBlink tells a text cursor's blink command (a real timer inside
// bubbles) by the function it is.
func isBlink(c tea.Cmd) bool {
	return strings.Contains(runtime.FuncForPC(reflect.ValueOf(c).Pointer()).Name(), "bubbles/v2/cursor.")
}

// press sends keys as a user types them; the form's check runs at once
// (in the app it runs in the background). Other commands (cursor blinks)
// are dropped.
func press(f *Form, names ...string) {
	for _, n := range names {
		f.Update(keyPress(n))
		syncCheck(f)
	}
}

// expect sends one key and returns the messages it produces for the page.
func expect(f *Form, name string) []tea.Msg {
	out := settle(f, f.Update(keyPress(name)))
	syncCheck(f)
	return out
}

func typeText(f *Form, s string) {
	for _, r := range s {
		f.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		syncCheck(f)
	}
}

// syncCheck runs the check the form would run in the background.
func syncCheck(f *Form) {
	if f.check != nil && f.checkedRev == f.rev {
		return
	}
	f.checking = false
	f.Update(f.checkCmd()())
}

// focus tabs to a field as a user would, failing if it is not on the form.
func focus(t *testing.T, f *Form, name string) {
	t.Helper()
	for i := 0; i < 2*len(f.rows); i++ {
		if f.focusedName() == name {
			return
		}
		press(f, "tab")
		if f.focus == len(f.rows)-1 {
			for f.focus > 0 {
				press(f, "shift+tab")
			}
		}
	}
	t.Fatalf("field %s is not on the %s form (rows %v)", name, f.op, f.rows)
}

func writePNG(t *testing.T, dir, name string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	img.Set(0, 0, color.White)
	p := filepath.Join(dir, name)
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(out, img); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return p
}

func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	json.Unmarshal(b, &x)
	b, _ = json.Marshal(x)
	return string(b)
}

func dataURI(t *testing.T, path string) string {
	t.Helper()
	u, err := catalog.FileToDataURI(path, catalog.MediaImage)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// step is one thing a user does to a field: type text, press keys, or add
// list items (typed, then enter).
type step struct {
	field string
	text  string
	keys  []string
	items []string
}

// Every operation's form, filled by keys, produces exactly the request the
// catalog accepts.
func TestFormsFillEveryOperationByKeys(t *testing.T) {
	type scenario struct {
		op    api.Operation
		model string
		steps []step
		want  func(img, img2 string) map[string]any
	}
	cases := []scenario{
		{api.OpReference2Video, "svcq3-turbo", []step{
			{field: "images", items: []string{"a.png"}},
			{field: "prompt", text: "a fox in snow"},
			{field: "duration", text: "8"},
			{field: "resolution", keys: []string{"right"}},
		}, func(a, _ string) map[string]any {
			return map[string]any{"model": "svcq3-turbo", "images": []any{a}, "prompt": "a fox in snow", "duration": 8, "resolution": "1080p"}
		}},
		{api.OpImg2Video, "svcq3-pro-fast", []step{
			{field: "images", items: []string{"a.png"}},
			{field: "prompt", text: "it starts to rain"},
			{field: "audio", keys: []string{"right"}},
		}, func(a, _ string) map[string]any {
			return map[string]any{"model": "svcq3-pro-fast", "images": []any{a}, "prompt": "it starts to rain", "audio": false}
		}},
		{api.OpText2Video, "svcq1", []step{
			{field: "prompt", text: "a lighthouse at dusk"},
			{field: "movement_amplitude", keys: []string{"right"}},
		}, func(string, string) map[string]any {
			return map[string]any{"model": "svcq1", "prompt": "a lighthouse at dusk", "movement_amplitude": "small"}
		}},
		{api.OpStartEnd2Video, "svcq2-turbo", []step{
			{field: "images", items: []string{"a.png", "b.png"}},
			{field: "prompt", text: "day to night"},
		}, func(a, b string) map[string]any {
			return map[string]any{"model": "svcq2-turbo", "images": []any{a, b}, "prompt": "day to night"}
		}},
		{api.OpReference2Image, "svcq2", []step{
			{field: "prompt", text: "a poster"},
			{field: "aspect_ratio", keys: []string{"right"}},
		}, func(string, string) map[string]any {
			return map[string]any{"model": "svcq2", "prompt": "a poster", "aspect_ratio": "9:16"}
		}},
		{api.OpAudioClone, "", []step{
			{field: "audio_url", text: "https://example.com/voice.mp3"},
			{field: "voice_id", text: "narrator_99"},
			{field: "text", text: "Hello there."},
		}, func(string, string) map[string]any {
			return map[string]any{"audio_url": "https://example.com/voice.mp3", "voice_id": "narrator_99", "text": "Hello there."}
		}},
		{api.OpAudioTTS, "", []step{
			{field: "text", text: "Hello <#0.5#> world"},
			{field: "voice_setting_voice_id", keys: []string{"ctrl+l", "ctrl+l"}},
			{field: "voice_setting_speed", text: "1.5"},
			{field: "voice_setting_emotion", keys: []string{"right", "right"}},
		}, func(string, string) map[string]any {
			return map[string]any{"text": "Hello <#0.5#> world", "voice_setting_voice_id": "narrator_02", "voice_setting_speed": 1.5, "voice_setting_emotion": "sad"}
		}},
		{api.OpTiming2Audio, "audio1.0", []step{
			{field: "duration", text: "8"},
			{field: "timing_prompts", keys: []string{"ctrl+n"}, text: "a door slams"},
		}, func(string, string) map[string]any {
			return map[string]any{"model": "audio1.0", "duration": 8, "timing_prompts": []any{map[string]any{"from": 0, "to": 2, "prompt": "a door slams"}}}
		}},
		{api.OpLipSync, "", []step{
			{field: "video_url", text: "https://example.com/v.mp4"},
			{field: "text", text: "hi #1# there"},
		}, func(string, string) map[string]any {
			return map[string]any{"video_url": "https://example.com/v.mp4", "text": "hi #1# there"}
		}},
		{api.OpTemplateStory, "", []step{
			{field: "story", keys: []string{"right"}},
			{field: "images", items: []string{"a.png"}},
		}, func(a, _ string) map[string]any {
			return map[string]any{"story": "love_story", "images": []any{a}}
		}},
		{api.OpTrendingReplicate, "", []step{
			{field: "video_url", text: "https://example.com/trend.mp4"},
			{field: "quality", keys: []string{"right"}},
		}, func(string, string) map[string]any {
			return map[string]any{"video_url": "https://example.com/trend.mp4", "quality": "plus"}
		}},
		{api.OpMV, "", []step{
			{field: "images", items: []string{"a.png"}},
			{field: "audio_url", text: "https://example.com/song.mp3"},
		}, func(a, _ string) map[string]any {
			return map[string]any{"images": []any{a}, "audio_url": "https://example.com/song.mp3"}
		}},
		{api.OpPremiumMV, "", []step{
			{field: "premium_mv_mode", keys: []string{"right"}},
			{field: "lip_ref_urls", items: []string{"a.png"}},
			{field: "audio_url", text: "https://example.com/song.mp3"},
		}, func(a, _ string) map[string]any {
			return map[string]any{"premium_mv_mode": "sing", "lip_ref_urls": []any{a}, "audio_url": "https://example.com/song.mp3"}
		}},
		{api.OpGeneralOneClick, "", []step{
			{field: "images", items: []string{"a.png"}},
			{field: "duration", text: "30"},
		}, func(a, _ string) map[string]any {
			return map[string]any{"images": []any{a}, "duration": 30}
		}},
	}
	for _, c := range cases {
		t.Run(string(c.op), func(t *testing.T) {
			f := newTestForm(t, c.op, c.model)
			a := writePNG(t, f.ctx.Dir, "a.png", 256, 256)
			b := writePNG(t, f.ctx.Dir, "b.png", 256, 256)
			for _, s := range c.steps {
				focus(t, f, s.field)
				for _, it := range s.items {
					typeText(f, it)
					press(f, "enter")
				}
				if s.field == "timing_prompts" {
					press(f, s.keys...) // add the event, then type its sound
					typeText(f, s.text)
					continue
				}
				typeText(f, s.text)
				press(f, s.keys...)
			}
			if !f.check.OK() {
				t.Fatalf("the catalog refuses the form: %v", f.check.Broken)
			}
			want := c.want(dataURI(t, a), dataURI(t, b))
			if got, w := canonical(t, f.check.Body), canonical(t, want); got != w {
				t.Fatalf("body\n got %s\nwant %s", textutil.Truncate(got, 400), textutil.Truncate(w, 400))
			}
			if errs := catalog.Validate(c.op, f.check.Body); errs != nil {
				t.Fatalf("the catalog refuses the body sent: %v", errs)
			}
			press(f, "ctrl+s")
			msgs := expect(f, "enter")
			if len(msgs) != 1 {
				t.Fatalf("review and enter: want one SubmitMsg, got %#v", msgs)
			}
			sub := msgs[0].(SubmitMsg)
			if sub.Forced || canonical(t, sub.Body) != canonical(t, want) {
				t.Fatalf("submitted %v (forced %v)", textutil.Truncate(canonical(t, sub.Body), 200), sub.Forced)
			}
		})
	}
}
