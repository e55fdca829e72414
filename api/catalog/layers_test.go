package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"clapper/api"
)

func TestServiceLayerMarksItsRules(t *testing.T) {
	s, err := Lookup(api.OpStartEnd2Video, "svcq2-pro")
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != LayerSpec {
		t.Errorf("svcq2-pro is a spec model of start-end2video, got %s", s.Source)
	}
	d, _ := s.Field("duration")
	p, _ := s.Field("prompt")
	if d.Source != LayerService || p.Source != LayerSpec {
		t.Errorf("duration from %s, prompt from %s; want service and spec", d.Source, p.Source)
	}
	if s, _ := Lookup(api.OpImg2Video, "svcq2-turbo"); s.Source != LayerService {
		t.Errorf("img2video svcq2-turbo comes from the service layer, got %s", s.Source)
	}
	if errs := Validate(api.OpImg2Video, map[string]any{"model": "svcq2-pro-fast", "images": []any{"https://e.com/a.png"}, "audio": true, "audio_type": "speech_only"}); errs != nil {
		t.Errorf("audio_type: %v", errs)
	}
	if errs := Validate(api.OpStartEnd2Video, map[string]any{"model": "svcq1", "images": []any{"https://e.com/a.png", "https://e.com/b.png"}, "is_rec": true, "duration": 6}); len(errs) != 1 || errs[0].Field != "duration" {
		t.Errorf("svcq1 start-end: is_rec accepted and only 5 s: %v", errs)
	}
}

func TestUserLayerChangesAndRemoves(t *testing.T) {
	t.Cleanup(ResetUser)
	err := LoadUser([]byte(`[{"operation":"text2video","models":[{"model":"svcq3-pro","fields":[
		{"name":"duration","max":20,"help":"longer now"},{"name":"watermark","remove":true}]}]}]`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Lookup(api.OpText2Video, "svcq3-pro")
	d, _ := s.Field("duration")
	if d.Source != LayerUser || d.Range.Min != 1 || d.Range.Max != 20 || d.Default != 5 {
		t.Errorf("duration after the user layer: %+v", d)
	}
	if _, ok := s.Field("watermark"); ok {
		t.Error("watermark was removed by the user layer")
	}
	if errs := Validate(api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p", "duration": 19}); errs != nil {
		t.Errorf("duration 19 under the user layer: %v", errs)
	}
	ResetUser()
	if errs := Validate(api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p", "duration": 19}); errs == nil {
		t.Error("duration 19 without the user layer must be refused")
	}
}

func TestUserLayerErrorsNameTheEntry(t *testing.T) {
	t.Cleanup(ResetUser)
	for _, c := range []struct{ file, want string }{
		{`{`, "c.json:1:1: not a catalog"},
		{`[{"operation":"txt2video","models":[]}]`, "c.json: entry 1: operation"},
		{`[{"operation":"text2video","models":[{"model":"svcq5","like":"svcq9"}]}]`, `text2video model "svcq5": like "svcq9" is not a model`},
		{`[{"operation":"text2video","models":[{"model":"svcq5","fields":[{"name":"mood"}]}]}]`, "field mood is new: give its kind"},
		{`[{"operation":"text2video","models":[{"model":"svcq5","fields":[{"name":"mood","kind":"feeling"}]}]}]`, `kind "feeling" is not one of`},
		{`[{"operation":"text2video","models":[{"model":"svcq5","fields":[{"name":"duration","maxx":3}]}]}]`, `unknown key "maxx"`},
		{`[{"operation":"text2video","models":[{"model":"svcq3-pro","fields":[{"name":"resolution","default":"8K"}]}]}]`, "field resolution: default 8K"},
		{`[{"operation":"audio-tts","models":[{"model":"x"}]}]`, "has no model field"},
		{`[{"operation":"text2video","models":[{"model":"bad name"}]}]`, "a model id is"},
	} {
		err := LoadUser([]byte(c.file), "c.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.file, err, c.want)
		}
		if userLayer.Load() != nil {
			t.Errorf("%s: a broken file must not be in force", c.file)
		}
	}
}

// An export read back as a user layer changes nothing: the file's form is
// the export's.
func TestExportReadsBackAsALayer(t *testing.T) {
	t.Cleanup(ResetUser)
	export := func() []OperationRules {
		var out []OperationRules
		for _, op := range api.Operations() {
			r, err := Describe(op)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	before := export()
	b, _ := json.Marshal(before)
	if err := LoadUser(b, "export.json"); err != nil {
		t.Fatalf("the export does not read back: %v", err)
	}
	after := export()
	for i := range after {
		for j := range after[i].Models {
			for k := range after[i].Models[j].Fields {
				after[i].Models[j].Fields[k].Source = before[i].Models[j].Fields[k].Source
			}
		}
	}
	a, _ := json.Marshal(after)
	if string(a) != string(b) {
		t.Error("an export read back as a layer changed the catalog")
	}
}

// Issue 32, Major 1: a change to one model in the user's catalog never
// reaches a model declared like it in an earlier layer (svcq2 is like
// svcq3-pro in service.json); a model the user declares like it takes the
// change, as it asked for it.
func TestUserChangeReachesNoModelDeclaredLikeItEarlier(t *testing.T) {
	t.Cleanup(ResetUser)
	before, err := Lookup(api.OpText2Video, "svcq2")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := before.Field("watermark"); !ok {
		t.Fatal("svcq2 has no watermark field to begin with")
	}
	if err := LoadUser([]byte(`[{"operation":"text2video","models":[
		{"model":"svcq3-pro","fields":[{"name":"watermark","remove":true}]},
		{"model":"svcq9","like":"svcq3-pro"}]}]`), "c.json"); err != nil {
		t.Fatal(err)
	}
	pro, _ := Lookup(api.OpText2Video, "svcq3-pro")
	if _, ok := pro.Field("watermark"); ok {
		t.Error("svcq3-pro keeps the field its patch removes")
	}
	q2, _ := Lookup(api.OpText2Video, "svcq2")
	if _, ok := q2.Field("watermark"); !ok {
		t.Error("svcq2 lost a field because svcq3-pro's did: a change to one model reached another")
	}
	q9, _ := Lookup(api.OpText2Video, "svcq9")
	if _, ok := q9.Field("watermark"); ok {
		t.Error("svcq9, declared like svcq3-pro by the user, does not take the user's change")
	}
}
