package catalog

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"clapper/api"
)

// A PNG whose data URI says JPEG is sent as PNG, checked as PNG (the strict
// check refuses a mislabelled image), normalized, and measured as written.
func TestPrepareRelabelsChecksNormalizesAndMeasures(t *testing.T) {
	png := pngURI(t, 200, 200)
	mislabelled := "data:image/jpeg;base64," + strings.SplitN(png, ",", 2)[1]
	r, err := Prepare(api.OpImg2Video, map[string]any{"model": "svcq3-pro", "prompt": "a cat", "images": mislabelled})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors != nil {
		t.Errorf("a mislabelled image must be relabelled before the check: %v", r.Errors)
	}
	images, ok := r.Body["images"].([]any)
	if !ok || len(images) != 1 || !strings.HasPrefix(images[0].(string), "data:image/png;base64,") {
		t.Fatalf("images as sent: %#v", r.Body["images"])
	}
	raw, _ := json.Marshal(r.Body)
	if r.Size != len(raw) {
		t.Errorf("size %d, the body as JSON is %d bytes", r.Size, len(raw))
	}
	bad, err := Prepare(api.OpImg2Video, map[string]any{"model": "svcq3-pro", "prompt": "a cat", "images": png, "duration": 99})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad.Errors) != 1 || bad.Errors[0].Field != "duration" {
		t.Errorf("a duration of 99 must be the one broken rule: %v", bad.Errors)
	}
}

// A text past any possible length of its bound is refused before it is
// copied (trust round two: a 30 MB prompt cost 350 MB before its refusal):
// the field named with its bound, and next to nothing allocated.
func TestPrepareRefusesHugeTextFirst(t *testing.T) {
	huge := strings.Repeat("a", 30<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := Prepare(api.OpText2Video, map[string]any{"model": "svcq3-pro", "prompt": huge})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if spent := after.TotalAlloc - before.TotalAlloc; spent > 1<<20 {
		t.Errorf("refusing a 30 MB prompt allocated %d bytes", spent)
	}
	if len(r.Errors) != 1 || r.Errors[0].Field != "prompt" || !strings.Contains(r.Errors[0].Message, "at most") {
		t.Errorf("errors %v", r.Errors)
	}
}
