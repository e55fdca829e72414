package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"clapper/api"
)

// FuzzValidate: any JSON object for any operation gets an answer, never a
// panic, and every error names a field and says something.
func FuzzValidate(f *testing.F) {
	for _, r := range modelRows {
		f.Add(r.op, r.base)
	}
	f.Add("reference2video", `{"model":"svcq2-pro","prompt":"p","subjects":[{"name":1,"videos":[null]}],"videos":{"a":1}}`)
	f.Add("timing2audio", `{"model":"audio1.0","duration":"x","timing_prompts":[{"from":"a","to":null}]}`)
	f.Add("audio-tts", `{"text":"a <#1#> b <#x#>","voice_setting_voice_id":["v"]}`)
	f.Add("reference2video", `{"model":"svcq2","prompt":"[@a] [@","subjects":[{"name":"a","images":"DATA:x"}],"duration":5.0,"seed":[]}`)
	f.Add("img2video", `{"model":"svcq3-pro","images":"data:video/mp4;base64,AAAAGGZ0eXA=","duration":1e400}`)
	f.Fuzz(func(t *testing.T, op, js string) {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(js))
		d.UseNumber()
		if d.Decode(&m) != nil || m == nil {
			return
		}
		for _, e := range Validate(api.Operation(op), m) {
			if e.Field == "" || e.Reason == "" || !strings.Contains(e.Message, ":") {
				t.Fatalf("error without field, reason or message: %+v", e)
			}
		}
		WithDefaults(api.Operation(op), m)
		if _, err := json.Marshal(Normalize(api.Operation(op), m)); err != nil {
			t.Fatalf("normalized body does not encode: %v", err)
		}
	})
}

// FuzzSplitPauses: accepted text round-trips into segments that hold all of
// its speakable text, and every pause lies within bounds.
func FuzzSplitPauses(f *testing.F) {
	for _, s := range []string{"a <#1#> b", "a<#0.01#>b<#99.99#>c", "<#1#>", "a #2# b", "#1 fan", "a <#1.#> b", "x\n<#3#>\ny"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, text string, tts bool) {
		style := PausesLipSync
		if tts {
			style = PausesTTS
		}
		segs, err := SplitPauses(text, style)
		if err != nil {
			return
		}
		for i, s := range segs {
			if i < len(segs)-1 && (s.Pause < 0.01 || s.Pause > 99.99 || !speakable(s.Text)) {
				t.Fatalf("segment %d of %q: %+v", i, text, s)
			}
		}
		if segs[len(segs)-1].Pause != 0 {
			t.Fatalf("last segment carries a pause: %+v", segs)
		}
	})
}

func TestSplitPauses(t *testing.T) {
	segs, err := SplitPauses("Hello <#1.5#> world <#0.25#> again", PausesTTS)
	if err != nil || len(segs) != 3 || segs[0].Pause != 1.5 || segs[1].Pause != 0.25 || segs[2].Text != " again" {
		t.Fatalf("SplitPauses = %+v, %v", segs, err)
	}
	segs, err = SplitPauses("we are #1 fans #2# of you", PausesLipSync)
	if err != nil || len(segs) != 2 || segs[0].Text != "we are #1 fans " || segs[0].Pause != 2 {
		t.Fatalf("lip-sync SplitPauses = %+v, %v", segs, err)
	}
	for _, bad := range []string{"a <#1.#> b", "a <##> b", "a <#-1#> b", "a <#1#>", "a <#1#>, <#2#> b"} {
		if _, err := SplitPauses(bad, PausesTTS); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
