package catalog

import (
	"sync"
	"testing"

	"clapper/api"
)

// A caller's Spec is its own: whatever it changes, down to a field's
// options, option help and range, the catalog's checks never see.
func TestLookupChangesStayTheCallers(t *testing.T) {
	req := map[string]any{"model": "svcq3-pro", "prompt": "p", "duration": 19, "resolution": "1080p"}
	want := Validate(api.OpText2Video, req)
	if len(want) != 1 || want[0].Field != "duration" {
		t.Fatalf("duration 19 must be refused on svcq3-pro: %v", want)
	}
	s, err := Lookup(api.OpText2Video, "svcq3-pro")
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Fields {
		f := &s.Fields[i]
		for j := range f.Options {
			f.Options[j] = "changed"
		}
		for k := range f.OptionHelp {
			f.OptionHelp[k] = "changed"
		}
		for j := range f.ImageFormats {
			f.ImageFormats[j] = "changed"
		}
		if f.Range != nil {
			f.Range.Max = 1000
		}
		f.Name += "-changed"
	}
	s.Fields = s.Fields[:1]
	Models(api.OpText2Video)[0] = "changed"

	again, _ := Lookup(api.OpText2Video, "svcq3-pro")
	res, ok := again.Field("resolution")
	if !ok || len(res.Options) == 0 || res.Options[0] == "changed" {
		t.Errorf("a caller's changes reached the catalog: resolution %+v", res)
	}
	if d, _ := again.Field("duration"); d.Range == nil || d.Range.Max == 1000 {
		t.Errorf("a caller's changes reached the catalog: duration %+v", d)
	}
	if m := Models(api.OpText2Video)[0]; m == "changed" {
		t.Error("a caller's change to Models reached the catalog")
	}
	got := Validate(api.OpText2Video, req)
	if len(got) != 1 || got[0] != want[0] {
		t.Errorf("after a caller changed its Spec, Validate says %v, want %v", got, want)
	}
}

// The package's own checks read the shared rules: once a model has been
// looked up, reading it, the operation's models or a field again allocates
// nothing.
func TestSharedRulesDoNotAllocate(t *testing.T) {
	read := func() {
		if _, err := shared(api.OpReference2Video, "svcq2-pro"); err != nil {
			t.Fatal(err)
		}
		if _, ok := FieldOf(api.OpReference2Video, "duration"); !ok {
			t.Fatal("reference2video takes a duration")
		}
		if _, ok := FieldOf(api.OpAudioTTS, "text"); !ok {
			t.Fatal("audio-tts takes a text")
		}
	}
	read()
	allocs := testing.AllocsPerRun(100, read)
	if allocs != 0 {
		t.Errorf("a cached lookup allocates %v times", allocs)
	}
}

// The cached rules follow the user layer in force: loading, replacing and
// dropping the catalog file each change what Validate accepts, even when
// the model was checked just before.
func TestCachedRulesFollowTheUserLayer(t *testing.T) {
	t.Cleanup(ResetUser)
	duration := func(n int) Errors {
		return Validate(api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p", "duration": n})
	}
	maxDuration := func(max string) {
		t.Helper()
		err := LoadUser([]byte(`[{"operation":"text2video","models":[{"model":"svcq3-pro","fields":[{"name":"duration","max":`+max+`}]}]}]`), "c.json")
		if err != nil {
			t.Fatal(err)
		}
	}
	if duration(19) == nil {
		t.Fatal("duration 19 is refused by the built-in layers")
	}
	maxDuration("20")
	if errs := duration(19); errs != nil {
		t.Errorf("a loaded file allows 19 s: %v", errs)
	}
	maxDuration("15")
	if duration(19) == nil || duration(14) != nil {
		t.Errorf("a replacing file allows up to 15 s: 19 -> %v, 14 -> %v", duration(19), duration(14))
	}
	ResetUser()
	if duration(19) == nil {
		t.Error("without the file duration 19 is refused again")
	}
}

// Checks run on many goroutines (forms, MCP requests, the sandbox) while a
// catalog file is loaded and dropped; run with -race.
func TestCachedRulesUnderConcurrentLayers(t *testing.T) {
	t.Cleanup(ResetUser)
	file := []byte(`[{"operation":"text2video","models":[{"model":"svcq3-pro","fields":[{"name":"duration","max":20}]}]}]`)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				Validate(api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p", "duration": 19})
				FieldOf(api.OpText2Video, "duration")
			}
		})
	}
	for range 20 {
		if err := LoadUser(file, "c.json"); err != nil {
			t.Fatal(err)
		}
		ResetUser()
	}
	wg.Wait()
	if Validate(api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": "p", "duration": 19}) == nil {
		t.Error("after the file is dropped, duration 19 is refused")
	}
}
