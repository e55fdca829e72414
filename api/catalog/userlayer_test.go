package catalog

import (
	"strings"
	"testing"

	"clapper/api"
)

// A user's catalog file at the edges of its form: removing the very first
// field, a model "like" another, counts of zero, values of the wrong type.

func TestUserLayerRemovesTheFirstField(t *testing.T) {
	t.Cleanup(ResetUser)
	spec, _ := Lookup(api.OpAudioTTS, "")
	first := spec.Fields[0].Name
	if err := LoadUser([]byte(`[{"operation":"audio-tts","models":[{"fields":[{"name":"`+first+`","remove":true}]}]}]`), "c.json"); err != nil {
		t.Fatal(err)
	}
	spec, _ = Lookup(api.OpAudioTTS, "")
	if _, ok := spec.Field(first); ok {
		t.Errorf("%s, the first field, is still there after its removal", first)
	}
}

// A new model "like" an existing one starts from that model's fields, so a
// field only that model has can be changed without restating its kind.
func TestUserModelLikeAnotherTakesItsFields(t *testing.T) {
	t.Cleanup(ResetUser)
	err := LoadUser([]byte(`[{"operation":"text2video","models":[{"model":"svcq5","like":"svcq1","fields":[
		{"name":"movement_amplitude","default":"small"}]}]}]`), "c.json")
	if err != nil {
		t.Fatalf("a field of the like model is refused: %v", err)
	}
	spec, _ := Lookup(api.OpText2Video, "svcq5")
	if f, ok := spec.Field("movement_amplitude"); !ok || f.Default != "small" || len(f.Options) == 0 {
		t.Errorf("movement_amplitude of svcq5: %+v", f)
	}
	if d, _ := spec.Field("duration"); d.Describe() != "integer; default 5; only 5 seconds" {
		t.Errorf("svcq5 is like svcq1, but its duration is %q", d.Describe())
	}
	// Without like, a new model starts from the operation's first model,
	// which has no movement_amplitude.
	err = LoadUser([]byte(`[{"operation":"text2video","models":[{"model":"svcq6","fields":[
		{"name":"movement_amplitude","default":"small"}]}]}]`), "c.json")
	if err == nil || !strings.Contains(err.Error(), "field movement_amplitude is new: give its kind") {
		t.Errorf("a field the first model lacks, without like: %v", err)
	}
}

func TestUserLayerValuesOfTheWrongShape(t *testing.T) {
	t.Cleanup(ResetUser)
	for _, c := range []struct{ file, want string }{
		{`[{"operation":"text2video","models":[{"model":"svcq3-pro","fields":[{"name":"duration","max":"ten"}]}]}]`,
			"field duration: max: "},
		{`[{"operation":"text2video","models":[{"model":"svcq3-pro","fields":[{"name":"duration","default":6.5}]}]}]`,
			"field duration: default 6.5: duration: must be a whole number"},
		{`[{"operation":"reference2video","models":[{"model":"svcq2","fields":[{"name":"images","min_items":-1}]}]}]`,
			"field images: counts and lengths cannot be negative"},
	} {
		err := LoadUser([]byte(c.file), "c.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.file, err, c.want)
		}
	}
	// Every kind is named when a kind is unknown, the last one included.
	err := LoadUser([]byte(`[{"operation":"text2video","models":[{"model":"svcq5","fields":[{"name":"mood","kind":"feeling"}]}]}]`), "c.json")
	if err == nil || !strings.HasSuffix(err.Error(), "is not one of "+strings.Join(kindNameList(), ", ")) ||
		!strings.HasSuffix(err.Error(), ", "+KindKeyFrames.String()) {
		t.Errorf("unknown kind: %v", err)
	}
}

func TestUserLayerAcceptsZeroCountsAndWholeDefaults(t *testing.T) {
	t.Cleanup(ResetUser)
	err := LoadUser([]byte(`[{"operation":"reference2video","models":[{"model":"svcq2","fields":[
		{"name":"images","min_items":0}]}]},
		{"operation":"text2video","models":[{"model":"svcq3-pro","fields":[{"name":"duration","default":6.0}]}]}]`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := Lookup(api.OpReference2Video, "svcq2")
	if f, _ := spec.Field("images"); f.MinItems != 0 {
		t.Errorf("min_items 0 read as %d", f.MinItems)
	}
	spec, _ = Lookup(api.OpText2Video, "svcq3-pro")
	if d, _ := spec.Field("duration"); d.Default != 6 {
		t.Errorf("default 6.0 of an integer field read as %#v", d.Default)
	}
}
