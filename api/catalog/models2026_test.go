package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"clapper/api"
)

// Models and fields as the service serves them in 2026 (service notes,
// "The service in 2026": models and fields seen in use), each with its
// source.

func TestSvc20TakesFourOrEightSeconds(t *testing.T) {
	for _, c := range []struct{ op, base string }{
		{"img2video", `{"model":"svc2.0","images":["https://example.com/a.png"]}`},
		{"start-end2video", `{"model":"svc2.0","images":["https://example.com/a.png","https://example.com/b.png"]}`},
		{"reference2video", `{"model":"svc2.0","images":["https://example.com/a.png"],"prompt":"a cat"}`},
	} {
		for _, d := range []int{5, 6, 7} {
			errs := Validate(api.Operation(c.op), with(t, c.base, "duration", d))
			if errs == nil || !strings.Contains(errs.Error(), "duration: svc2.0 accepts 4 or 8 seconds, got "+FormatValue(d)) {
				t.Errorf("%s svc2.0 duration %d: %v", c.op, d, errs)
			}
		}
		expectValid(t, c.op, with(t, c.base, "resolution", "360p"))
		s, _ := Lookup(api.Operation(c.op), "svc2.0")
		if s.Source != LayerService || !strings.Contains(s.Cite, "svc2.0 is still served") {
			t.Errorf("%s svc2.0: source %s, cite %q", c.op, s.Source, s.Cite)
		}
	}
	expectInvalid(t, "reference2video", with(t, `{"model":"svc2.0","prompt":"a cat"}`, "images", images(4)), "images")
	expectInvalid(t, "text2video", decode(t, `{"model":"svc2.0","prompt":"a cat"}`), "model")
}

func TestStyleBgmAndAudioType(t *testing.T) {
	// style is "effective for svcq1 only": the other models do not take it
	// (the sandbox ignores it there, as the service does).
	t1 := `{"model":"svcq1","prompt":"a cat"}`
	expectValid(t, "text2video", with(t, t1, "style", "anime"))
	expectInvalid(t, "text2video", with(t, t1, "style", "cartoon"), "style")
	if f, _ := mustLookup(t, "text2video", "svcq1").Field("style"); !strings.Contains(f.Cite, "effective for svcq1 only") {
		t.Errorf("text2video svcq1 style cites %q", f.Cite)
	}
	for _, m := range []string{"svcq2", "svcq3-pro", "svcq3-turbo"} {
		expectInvalid(t, "text2video", with(t, `{"model":"`+m+`","prompt":"a cat"}`, "style", "anime"), "style")
	}
	for op, takes := range map[string]map[string]bool{
		"text2video": {"svcq1": true, "svcq2": true, "svcq3-pro": false, "svcq3-turbo": false},
		"img2video":  {"svcq1": true, "svcq1-classic": true, "svcq2-pro": true, "svcq2-turbo": true, "svcq2-pro-fast": true, "svc2.0": true, "svcq3-pro": false},
	} {
		for m, ok := range takes {
			base := `{"model":"` + m + `","prompt":"a cat","images":["https://example.com/a.png"]}`
			if op == "text2video" {
				base = `{"model":"` + m + `","prompt":"a cat"}`
			}
			if ok {
				expectValid(t, op, with(t, base, "bgm", true))
			} else {
				expectInvalid(t, op, with(t, base, "bgm", true), "bgm")
			}
		}
	}
	for _, c := range []struct{ op, model string }{{"img2video", "svcq3-pro"}, {"img2video", "svcq3-turbo"}, {"img2video", "svcq3-pro-fast"},
		{"reference2video", "svcq3"}, {"reference2video", "svcq3-turbo"}, {"reference2video", "svcq3-drama"}, {"reference2video", "svcq3-mix"}, {"reference2video", "svcq3-ad"}} {
		f, ok := mustLookup(t, c.op, c.model).Field("audio_type")
		if !ok || !strings.Contains(f.Cite, "mirrors of the official q3 pages") {
			t.Errorf("%s %s audio_type: %v %q", c.op, c.model, ok, f.Cite)
		}
	}
}

// Where one source says it, or sources disagree, the catalog takes the
// lenient side and says so.
func TestRulesOfWeakSourcesSaySo(t *testing.T) {
	for _, c := range []struct{ op, model, field, cite string }{
		{"img2video", "svcq3-pro", "resolution", "one source"},
		{"img2video", "svcq2-pro", "resolution", "sources disagree"},
		{"img2video", "svcq2-turbo", "resolution", "sources disagree"},
		{"start-end2video", "svcq2-pro", "duration", "sources disagree"},
		{"reference2video", "svcq3-mix", "duration", "two mirrors"},
		{"lip-sync", "", "speed", "Beyond the spec's tables"},
	} {
		f, _ := mustLookup(t, c.op, c.model).Field(c.field)
		if !strings.Contains(f.Cite, c.cite) {
			t.Errorf("%s %s %s: cite %q, want %q", c.op, c.model, c.field, f.Cite, c.cite)
		}
	}
	f, _ := mustLookup(t, "img2video", "svcq2-pro-fast").Field("resolution")
	if contains(f.Options, "540p") {
		t.Error("svcq2-pro-fast at 540p: no source gives it")
	}
	if f, _ := mustLookup(t, "img2video", "svcq3-turbo").Field("resolution"); f.Cite != "" {
		t.Errorf("a rule of the spec cites %q", f.Cite)
	}
}

func mustLookup(t *testing.T, op, model string) *Spec {
	t.Helper()
	s, err := Lookup(api.Operation(op), model)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// "Numbers as strings: the official text2audio example sends "duration":
// "10", "seed": "0", and a mirror of the official speech page types
// voice_setting_speed, _volume and _pitch as strings. The service accepts
// numeric strings where its examples send them." There only; clapper
// sends the number.
func TestNumbersAsStringsWhereTheExamplesSendThem(t *testing.T) {
	t2a := `{"model":"audio1.0","prompt":"rain"}`
	tts := `{"text":"Hello.","voice_setting_voice_id":"female-shaonv"}`
	for _, c := range []struct {
		op, base, field, value string
		want                   json.Number
	}{
		{"text2audio", t2a, "duration", "10", "10"},
		{"text2audio", t2a, "duration", "2.5", "2.5"},
		{"text2audio", t2a, "seed", "0", "0"},
		{"audio-tts", tts, "voice_setting_speed", "1.5", "1.5"},
		{"audio-tts", tts, "voice_setting_volume", "1", "1"},
		{"audio-tts", tts, "voice_setting_pitch", "-3", "-3"},
	} {
		req := with(t, c.base, c.field, c.value)
		expectValid(t, c.op, req)
		if got := Normalize(api.Operation(c.op), req)[c.field]; got != c.want {
			t.Errorf("%s %s %q goes on the wire as %#v, want the number %s", c.op, c.field, c.value, got, c.want)
		}
		f, _ := mustLookup(t, c.op, modelOf(c.base)).Field(c.field)
		if !strings.Contains(f.Cite, "numbers as strings") || !strings.Contains(f.Describe(), "also a numeric string") {
			t.Errorf("%s %s: cite %q, described %q", c.op, c.field, f.Cite, f.Describe())
		}
	}
	// Still bounded and still a number; elsewhere a string stays refused.
	for _, c := range []struct{ op, base, field, value, says string }{
		{"text2audio", t2a, "duration", "11", "2 to 10 seconds"},
		{"text2audio", t2a, "duration", " 10", `must be a number, got " 10"`},
		{"text2audio", t2a, "duration", "0x10", `got "0x10"`},
		{"text2audio", t2a, "duration", "Infinity", `got "Infinity"`},
		{"text2audio", t2a, "seed", "1.5", "must be a whole number, got 1.5"},
		{"audio-tts", tts, "voice_setting_speed", "3", "0.5 to 2"},
		{"text2video", `{"model":"svcq3-pro","prompt":"a cat"}`, "duration", "10", `must be a whole number, got "10"`},
		{"lip-sync", `{"video_url":"https://example.com/v.mp4","text":"hello"}`, "speed", "1.0", `got "1.0"`},
	} {
		errs := Validate(api.Operation(c.op), with(t, c.base, c.field, c.value))
		if errs == nil || !strings.Contains(errs.Error(), c.field+": ") || !strings.Contains(errs.Error(), c.says) {
			t.Errorf("%s %s %q: %v, want %q", c.op, c.field, c.value, errs, c.says)
		}
	}
	if got := Normalize(api.OpText2Video, with(t, `{"model":"svcq3-pro"}`, "duration", "10"))["duration"]; got != "10" {
		t.Errorf("a string where no example sends one is changed to %#v; Validate refuses it as sent", got)
	}
}

func modelOf(body string) string {
	var m struct{ Model string }
	_ = json.Unmarshal([]byte(body), &m)
	return m.Model
}
