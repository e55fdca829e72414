package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"clapper/api"
)

// The notes' words on the five operations of 2026 ("The service in 2026"),
// each bound met and passed once.

func keyFrames(n int, dur any) []any {
	out := make([]any, n)
	for i := range out {
		kf := map[string]any{"key_image": "https://example.com/k.png"}
		if dur != nil {
			kf["duration"] = dur
		}
		out[i] = kf
	}
	return out
}

func TestExtendTakesACreationOrAURL(t *testing.T) {
	base := `{"model":"svcq2-pro"}`
	expectInvalid(t, "extend", decode(t, base), "video_creation_id")
	expectValid(t, "extend", with(t, base, "video_creation_id", "3141592653589793"))
	expectValid(t, "extend", with(t, base, "video_url", "https://example.com/v.mp4"))
	// Both: the creation id wins (upscale-new's page; extend read alike).
	both := with(t, base, "video_url", "https://example.com/v.mp4")
	both["video_creation_id"] = "3141592653589793"
	expectValid(t, "extend", both)
	// A URL the service fetches: never a file.
	expectInvalid(t, "extend", with(t, base, "video_url", "data:video/mp4;base64,AAAA"), "video_url")
	// One end frame at most.
	withID := `{"model":"svcq2-turbo","video_creation_id":"1"}`
	expectValid(t, "extend", with(t, withID, "images", images(1)))
	expectInvalid(t, "extend", with(t, withID, "images", images(2)), "images")
	expectInvalid(t, "extend", with(t, `{"model":"svcq3-pro","video_creation_id":"1"}`, "duration", 5), "model")
	f, _ := FieldOf(api.OpExtend, "video_url")
	if f.MinSeconds != 4 || f.MaxSeconds != 60 {
		t.Errorf("extend's source is 4 s to 1 min, got %v-%v", f.MinSeconds, f.MaxSeconds)
	}
}

func TestMultiframeKeyFrames(t *testing.T) {
	base := `{"model":"svcq2-pro","start_image":"https://example.com/s.png"}`
	expectInvalid(t, "multiframe", decode(t, base), "image_settings")
	expectInvalid(t, "multiframe", with(t, base, "image_settings", keyFrames(1, 5)), "image_settings")
	expectValid(t, "multiframe", with(t, base, "image_settings", keyFrames(2, 5)))
	expectValid(t, "multiframe", with(t, base, "image_settings", keyFrames(9, 5)))
	expectInvalid(t, "multiframe", with(t, base, "image_settings", keyFrames(10, 5)), "image_settings")
	for dur, ok := range map[any]bool{json.Number("1"): false, json.Number("2"): true, json.Number("7"): true, json.Number("8"): false, json.Number("2.5"): false, "5": false} {
		m := with(t, base, "image_settings", keyFrames(2, dur))
		if ok {
			expectValid(t, "multiframe", m)
		} else {
			expectInvalid(t, "multiframe", m, "image_settings")
		}
	}
	// duration and prompt are optional; key_image is not.
	expectValid(t, "multiframe", with(t, base, "image_settings", keyFrames(2, nil)))
	noImage := keyFrames(2, 5)
	delete(noImage[1].(map[string]any), "key_image")
	errs := Validate(api.OpMultiframe, with(t, base, "image_settings", noImage))
	if errs == nil || !strings.Contains(errs.Error(), "image_settings[1].key_image: required") {
		t.Errorf("a key frame without its image: %v", errs)
	}
	odd := keyFrames(2, 5)
	odd[0].(map[string]any)["image"] = "https://example.com/x.png"
	expectInvalid(t, "multiframe", with(t, base, "image_settings", odd), "image_settings")
	expectInvalid(t, "multiframe", with(t, `{"model":"svcq2-pro"}`, "image_settings", keyFrames(2, 5)), "start_image")
	// A lone key frame is told both that a second is needed and what is
	// wrong with itself, as the form shows it while the user builds the list.
	lone := Validate(api.OpMultiframe, with(t, base, "image_settings", keyFrames(1, json.Number("9"))))
	for _, want := range []string{"image_settings: svcq2-pro takes 2 to 9 key frames, got 1", "image_settings[0].duration: "} {
		if lone == nil || !strings.Contains(lone.Error(), want) {
			t.Errorf("one key frame of 9 s: %v, want %q", lone, want)
		}
	}
	// A key frame's image is checked as any image is.
	bad := keyFrames(2, 5)
	bad[0].(map[string]any)["key_image"] = "data:image/png;base64,AAAA"
	expectInvalid(t, "multiframe", with(t, base, "image_settings", bad), "image_settings")
}

func TestUpscaleNewTargets(t *testing.T) {
	base := `{"video_url":"https://example.com/v.mp4"}`
	expectInvalid(t, "upscale-new", decode(t, base), "upscale_resolution")
	for _, r := range []string{"1080p", "2K", "4K", "8K"} {
		expectValid(t, "upscale-new", with(t, base, "upscale_resolution", r))
	}
	expectInvalid(t, "upscale-new", with(t, base, "upscale_resolution", "720p"), "upscale_resolution")
	expectInvalid(t, "upscale-new", decode(t, `{"upscale_resolution":"4K"}`), "video_creation_id")
	f, _ := FieldOf(api.OpUpscaleNew, "video_url")
	if f.MaxSeconds != 300 {
		t.Errorf("upscale-new's source is at most 300 s, got %v", f.MaxSeconds)
	}
}

func TestText2AudioDuration(t *testing.T) {
	base := `{"model":"audio1.0","prompt":"rain"}`
	for dur, ok := range map[string]bool{"2": true, "1.99": false, "2.5": true, "10": true, "10.01": false} {
		m := with(t, base, "duration", json.Number(dur))
		if ok {
			expectValid(t, "text2audio", m)
		} else {
			expectInvalid(t, "text2audio", m, "duration")
		}
	}
	if got := WithDefaults(api.OpText2Audio, decode(t, base))["duration"]; got != 10.0 {
		t.Errorf("default duration %v, want 10", got)
	}
	expectInvalid(t, "text2audio", decode(t, `{"model":"audio1.0"}`), "prompt")
	expectValid(t, "text2audio", with(t, base, "prompt", strings.Repeat("é", 1500)))
	expectInvalid(t, "text2audio", with(t, base, "prompt", strings.Repeat("é", 1501)), "prompt")
}

func TestTemplateFields(t *testing.T) {
	photo := `"images":["https://example.com/a.png"]`
	expectValid(t, "template2video", decode(t, `{"template":"exotic_princess","prompt":"a walk",`+photo+`,"area":"japan"}`))
	expectInvalid(t, "template2video", decode(t, `{"template":"hugging","prompt":"a hug",`+photo+`,"area":"japan"}`), "area")
	expectValid(t, "template2video", decode(t, `{"template":"beast_companion","prompt":"a walk",`+photo+`,"beast":"wolf"}`))
	expectInvalid(t, "template2video", decode(t, `{"template":"kissing","prompt":"a kiss",`+photo+`,"beast":"wolf"}`), "beast")
	expectInvalid(t, "template2video", decode(t, `{"template":"exotic_princess","prompt":"a walk",`+photo+`,"area":"atlantis"}`), "area")
	// A prompt is optional for some templates only.
	expectValid(t, "template2video", decode(t, `{"template":"subject_3",`+photo+`}`))
	expectValid(t, "template2video", decode(t, `{"template":"pubg_winner_hit",`+photo+`}`))
	expectInvalid(t, "template2video", decode(t, `{"template":"hugging",`+photo+`}`), "prompt")
	// The list changes: another name is sent as written; a name that is
	// no name is refused.
	expectValid(t, "template2video", decode(t, `{"template":"snow_globe",`+photo+`}`))
	expectInvalid(t, "template2video", decode(t, `{"template":"snow globe!",`+photo+`}`), "template")
	expectInvalid(t, "template2video", decode(t, `{"template":"subject_3"}`), "images")
	for _, tp := range Templates() {
		if tp.Description == "" || tp.Needs() == "" {
			t.Errorf("template %s has no gallery line", tp.Name)
		}
	}
	if got := (Template{Photos: "1 photo", PromptOptional: true, Field: "area"}).Needs(); got != "1 photo, a prompt (optional), area" {
		t.Errorf("Needs = %q", got)
	}
}

// The new operations are the service layer's, every field citing the notes.
func TestNewOperationsAreTheServiceLayers(t *testing.T) {
	for _, op := range []api.Operation{api.OpExtend, api.OpMultiframe, api.OpUpscaleNew, api.OpText2Audio, api.OpTemplate2Video} {
		for _, m := range modelsOrNone(op) {
			s, err := Lookup(op, m)
			if err != nil {
				t.Fatal(err)
			}
			if s.Source != LayerService || ModelSource(op, m) != LayerService {
				t.Errorf("%s %s: source %s", op, m, s.Source)
			}
			for _, f := range s.Fields {
				if f.Source != LayerService || !strings.Contains(f.Cite, "The service in 2026") {
					t.Errorf("%s %s %s: source %s, cite %q", op, m, f.Name, f.Source, f.Cite)
				}
			}
		}
	}
	if ResultMedia(api.OpText2Audio) != MediaAudio || OutputOf(api.OpExtend) != OutputVideo {
		t.Error("text2audio makes audio, extend a video")
	}
}

// A retired model is named so, and a catalog file can bring it back.
func TestRetiredModel(t *testing.T) {
	t.Cleanup(ResetUser)
	errs := Validate(api.OpImg2Video, decode(t, `{"model":"svc1.5","images":["https://example.com/a.png"]}`))
	if errs == nil || !strings.Contains(errs.Error(), "svc1.5 is retired") {
		t.Errorf("svc1.5: %v", errs)
	}
	if errs := Validate(api.OpImg2Video, decode(t, `{"model":"svc9","images":["https://example.com/a.png"]}`)); errs == nil || strings.Contains(errs.Error(), "retired") {
		t.Errorf("an unknown model is not retired: %v", errs)
	}
	if err := LoadUser([]byte(`[{"operation":"img2video","models":[{"model":"svc1.5","like":"svcq3-turbo"}]}]`), "catalog.json"); err != nil {
		t.Fatal(err)
	}
	expectValid(t, "img2video", decode(t, `{"model":"svc1.5","images":["https://example.com/a.png"]}`))
}
