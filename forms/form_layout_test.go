package forms

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clapper/api"
	"clapper/api/catalog"
)

// The forms' rules that the changed lines hold, each from what a user of
// the form sees (issue 35's survivors of forms).

// The Advanced row names the model's advanced fields; enter opens it with
// its fields below, enter again closes it, the cursor staying on the row.
func TestAdvancedRowOpensAndCloses(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	if !strings.Contains(lineOf(f, "▸ Advanced"), "seed") || lineOf(f, "seed") != "" {
		t.Fatalf("the Advanced row does not name seed, or seed is open:\n%s", f.View())
	}
	for range len(f.rows) {
		if f.rows[f.focus].kind == rowAdvanced {
			break
		}
		press(f, "tab")
	}
	press(f, "enter")
	if _, ok := hasRow(f, "seed"); !ok || f.rows[f.focus].kind != rowAdvanced {
		t.Fatalf("enter on Advanced did not open it in place:\n%s", f.View())
	}
	press(f, "enter")
	if _, ok := hasRow(f, "seed"); ok {
		t.Fatalf("enter again did not close it:\n%s", f.View())
	}
}

// Values handed to an open form (a result sent onward, a preset) leave the
// cursor on the field it was on.
func TestApplyKeepsTheCursor(t *testing.T) {
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	focus(t, f, "aspect_ratio")
	settle(f, f.Apply(map[string]any{"prompt": "a fox", "seed": 7}))
	if got := f.focusedName(); got != "aspect_ratio" {
		t.Fatalf("after Apply the cursor is on %q, want aspect_ratio", got)
	}
}

// A template decides whether the prompt must be given and says which
// photos it takes.
func TestTemplateDecidesThePromptAndPhotos(t *testing.T) {
	for _, tc := range []struct {
		template       string
		promptRequired bool
		photos         string
	}{{"hugging", true, "the hugging template's photos: 1 or 2 photos"}, {"subject_3", false, "the subject_3 template's photos: 1 photo"}} {
		f := newTestForm(t, api.OpTemplate2Video, "")
		settle(f, f.Apply(map[string]any{"template": tc.template}))
		syncCheck(f)
		if got := strings.Contains(lineOf(f, "prompt"), "prompt *"); got != tc.promptRequired {
			t.Errorf("%s: the prompt is marked required %v, want %v:\n%s", tc.template, got, tc.promptRequired, f.View())
		}
		if !strings.Contains(lineOf(f, "images"), "images *") {
			t.Errorf("%s: the images are not marked required:\n%s", tc.template, f.View())
		}
		focus(t, f, "images")
		if !strings.Contains(f.View(), tc.photos) {
			t.Errorf("%s: the images' help does not say %q:\n%s", tc.template, tc.photos, f.View())
		}
	}
	f := newTestForm(t, api.OpText2Video, "svcq3-pro")
	if !strings.Contains(lineOf(f, "prompt"), "prompt *") {
		t.Errorf("text2video's prompt is not marked required:\n%s", f.View())
	}
}

// A focused field's help is under it, and only the focused one's.
func TestHelpUnderTheFocusedField(t *testing.T) {
	f := newTestForm(t, api.OpPremiumMV, "")
	const help = "Mode · sing, sing_perform (lip-sync), perform, dance"
	focus(t, f, "premium_mv_mode")
	if !strings.Contains(f.View(), help) {
		t.Fatalf("the focused mode's help is not shown:\n%s", f.View())
	}
	focus(t, f, "audio_url")
	if strings.Contains(f.View(), help) {
		t.Fatalf("the mode's help stays when it is not focused:\n%s", f.View())
	}
}

// A draft's model the catalog does not know stays in the values (the check
// names it); an empty model is the form's.
func TestValuesKeepTheDraftsModel(t *testing.T) {
	f := newTestForm(t, api.OpMultiframe, "svcq2-pro")
	if got := f.Values()["model"]; got != "svcq2-pro" {
		t.Fatalf("a fresh form's model: %v", got)
	}
	settle(f, f.Apply(map[string]any{"model": "svcq9-gone"}))
	syncCheck(f)
	if got := f.Values()["model"]; got != "svcq9-gone" {
		t.Fatalf("the draft's model became %v", got)
	}
	if !strings.Contains(f.View(), `multiframe has no model "svcq9-gone"`) {
		t.Fatalf("the check does not name the draft's model:\n%s", f.View())
	}
}

// In a form, a key image's row says what was measured of its file, and a
// file that cannot be read is said once, under the field and in the
// review's count.
func TestKeyImageFilesInTheForm(t *testing.T) {
	f := newTestForm(t, api.OpMultiframe, "svcq2-pro")
	img := writePNG(t, f.ctx.Dir, "k.png", 320, 240)
	settle(f, f.Apply(map[string]any{"image_settings": []any{map[string]any{"key_image": img}, map[string]any{"key_image": "gone.png"}}}))
	syncCheck(f)
	focus(t, f, "image_settings")
	press(f, "down") // frame 1's prompt: its key image's row shows the value and its note
	if row := lineOf(f, "key image"); !strings.Contains(row, "320×240") && !strings.Contains(row, "320x240") {
		t.Errorf("the key image's row does not say the file's figures: %q\n%s", row, f.View())
	}
	msgs := f.check.Errors["image_settings"]
	if len(msgs) != 1 || !strings.Contains(msgs[0], "gone.png: no such file") {
		t.Fatalf("the lost file is not said once: %q", msgs)
	}
	if n := strings.Count(strings.Join(f.check.Broken, "\n"), "image_settings"); n != 1 {
		t.Fatalf("the broken rules name image_settings %d times: %q", n, f.check.Broken)
	}
}

// With uploads the review says each image's size as uploaded: its file's.
func TestReviewSaysTheUploadsSize(t *testing.T) {
	f := newTestForm(t, api.OpImg2Video, "svcq3-turbo")
	f.ctx.Uploading = func(int) bool { return true }
	img := writePNG(t, f.ctx.Dir, "cat.png", 900, 700)
	settle(f, f.Apply(map[string]any{"prompt": "a cat", "images": []any{img}}))
	syncCheck(f)
	press(f, "ctrl+s")
	want := "(uploaded before sending: image/png, " + api.ByteSize(fileSize(t, img)) + ")"
	if view := f.View(); !strings.Contains(view, want) {
		t.Fatalf("the review does not say %q:\n%s", want, view)
	}
}

// An operation without models sends no model.
func TestValuesOfAnOperationWithoutModels(t *testing.T) {
	for _, op := range []api.Operation{api.OpUpscaleNew, api.OpTemplate2Video, api.OpAudioClone} {
		f := newTestForm(t, op, "")
		if m, ok := f.Values()["model"]; ok {
			t.Errorf("%s: the values hold a model %q", op, m)
		}
	}
}

// A model whose advanced fields a catalog layer removed shows no Advanced
// row: nothing would open under it.
func TestNoAdvancedRowWithoutAdvancedFields(t *testing.T) {
	if err := catalog.LoadUser([]byte(`[{"operation":"upscale-new","models":[{"fields":[{"name":"payload","remove":true},{"name":"callback_url","remove":true}]}]}]`), "c.json"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(catalog.ResetUser)
	f := newTestForm(t, api.OpUpscaleNew, "")
	for _, r := range f.rows {
		if r.kind == rowAdvanced {
			t.Fatalf("an Advanced row with no advanced field:\n%s", f.View())
		}
	}
	if !strings.Contains(f.View(), "upscale_resolution") {
		t.Fatalf("the form lost its fields:\n%s", f.View())
	}
}

// A file in an image list or an audio field that cannot be sent (no such
// file, or no image) is said once: not again as a value that is no URL,
// which the path, never sent, is not meant to be.
func TestUnreadableMediaFileSaidOnce(t *testing.T) {
	for _, c := range []struct {
		op    api.Operation
		model string
		field string
		value any
		want  string
	}{
		{api.OpImg2Video, "svcq3-turbo", "images", []any{"gone.png"}, "gone.png: no such file"},
		{api.OpImg2Video, "svcq3-turbo", "images", []any{"notes.txt"}, "notes.txt looks like text/plain, not an image file"},
		{api.OpMV, "", "audio_url", "gone.mp3", "gone.mp3: no such file"},
	} {
		f := newTestForm(t, c.op, c.model)
		if err := os.WriteFile(filepath.Join(f.ctx.Dir, "notes.txt"), []byte("just words\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		settle(f, f.Apply(map[string]any{c.field: c.value}))
		syncCheck(f)
		msgs := f.check.Errors[c.field]
		if len(msgs) != 1 || !strings.Contains(msgs[0], c.want) {
			t.Errorf("%s %s: the file's fault is not said once: %q", c.op, c.field, msgs)
		}
	}
}
