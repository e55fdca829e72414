package catalog

import (
	"slices"
	"testing"

	"clapper/api"
)

// Field.Describe is the one-line rule `clapper models` and the forms'
// help show: each part appears only when the field has it, in the spec's
// words (a unit after a range, "exactly", "at most", "only").
func TestFieldDescribeSaysEachRule(t *testing.T) {
	for _, c := range []struct {
		op    api.Operation
		model string
		field string
		want  string
	}{
		{api.OpReference2Video, "svcq2", "duration", "integer; default 5; 1 to 10 seconds"},
		{api.OpAudioTTS, "", "voice_setting_pitch", "integer; default 0; -12 to 12; also a numeric string"},
		{api.OpReference2Video, "svcq1", "duration", "integer; default 5; only 5 seconds"},
		{api.OpReference2Video, "svcq4-preview", "sounds", "audio list; at most 3 audio files"},
		{api.OpReference2Video, "svcq2-pro", "videos", "video list; 1 to 2 videos; at most 8 s long"},
		{api.OpImg2Video, "svcq3-pro", "images", "image list; required; exactly 1 image"},
		{api.OpTrendingReplicate, "", "images", "image list"},
		{api.OpTrendingReplicate, "", "video_url", "video; required"},
		{api.OpAudioClone, "", "audio_url", "audio; required; 10 to 300 s long"},
		{api.OpTiming2Audio, "audio1.0", "model", "choice; required; only audio1.0"},
		{api.OpLipSync, "", "text", "text; 4 to 2000 characters"},
		{api.OpText2Video, "svcq3-pro", "callback_url", "URL"},
	} {
		spec, err := Lookup(c.op, c.model)
		if err != nil {
			t.Fatal(err)
		}
		f, ok := spec.Field(c.field)
		if !ok {
			t.Fatalf("%s %s has no field %s", c.op, c.model, c.field)
		}
		if got := f.Describe(); got != c.want {
			t.Errorf("%s %s %s: %q, want %q", c.op, c.model, c.field, got, c.want)
		}
	}
}

// Describe without model names gives every model of the operation, in the
// catalog's order; with names, only those.
func TestDescribeGivesEveryModelUnlessNamed(t *testing.T) {
	all, err := Describe(api.OpText2Video)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range all.Models {
		got = append(got, m.Model)
		if len(m.Fields) == 0 {
			t.Errorf("%s: no fields", m.Model)
		}
	}
	if want := Models(api.OpText2Video); !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf("models %v, want %v", got, want)
	}
	one, err := Describe(api.OpText2Video, "svcq1")
	if err != nil || len(one.Models) != 1 || one.Models[0].Model != "svcq1" {
		t.Errorf("Describe(svcq1): %+v, %v", one.Models, err)
	}
	if _, err := Describe(api.OpText2Video, "svcq9"); err == nil {
		t.Error("an unknown model is described")
	}
}
