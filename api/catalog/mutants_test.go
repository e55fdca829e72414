package catalog

import (
	"errors"
	"strings"
	"testing"

	"clapper/api"
)

// Tests for the mutants of the whole-package run of issue 35 that lived.

// A prompt of exactly 5000 characters is within text2video's bound
// whatever the characters: 5000 emoji are 20,000 bytes, four a character,
// and the shortcut that refuses a text too long in any case must not
// refuse it.
func TestAPromptAtItsBoundInFourByteCharactersIsAccepted(t *testing.T) {
	prompt := strings.Repeat("😀", 5000)
	r, err := Prepare(api.OpText2Video, map[string]any{"model": "svcq1", "prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors != nil {
		t.Errorf("5000 emoji (%d bytes) refused: %v", len(prompt), r.Errors)
	}
	r, _ = Prepare(api.OpText2Video, map[string]any{"model": "svcq1", "prompt": prompt + "😀"})
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "at most 5000 characters") {
		t.Errorf("5001 emoji: %v", r.Errors)
	}
}

// start-end2video's first frame, sent onward while no image is set yet,
// is recorded as the first frame (images[0]), as the last frame is
// (images[1], or images[0] when it lands first): the label names the
// frame, never the bare list.
func TestAFirstFrameIntoAnEmptyListIsLabelledAsTheFrame(t *testing.T) {
	first, ok := TargetFor(api.OpStartEnd2Video, "images[0]", OutputImage)
	if !ok {
		t.Fatal("no first frame")
	}
	got, label := first.Place(nil, "new.png")
	if label != "images[0]" || len(got.([]any)) != 1 {
		t.Errorf("the first frame into no images: %v at %q, want images[0]", got, label)
	}
	if at, ok := first.Holds(got, "new.png"); !ok || at != "images[0]" {
		t.Errorf("Holds: %q %v", at, ok)
	}
}

// A bare "images" names no frame of start-end2video: its two images are
// places of their own, so the label is not taken for the first one.
func TestABareListNamesNoFrame(t *testing.T) {
	if got, ok := TargetFor(api.OpStartEnd2Video, "images", OutputImage); ok {
		t.Errorf("start-end2video images named %s", got.Label())
	}
	if got, ok := TargetFor(api.OpReference2Video, "images", OutputImage); !ok || got.Index != -1 {
		t.Errorf("reference2video's images, a list without places: %+v %v", got, ok)
	}
}

// A user's catalog may word a field's help in any way: one that starts
// with a parenthesis still names the place a result is sent to.
func TestAPlaceNamedByAHelpInParentheses(t *testing.T) {
	t.Cleanup(ResetUser)
	if err := LoadUser([]byte(`[{"operation":"lip-sync","models":[{"fields":[{"name":"video_url","help":"(the dancer's clip)"}]}]}]`), "c.json"); err != nil {
		t.Fatal(err)
	}
	got, ok := TargetFor(api.OpLipSync, "video_url", OutputVideo)
	if !ok || got.Name != "(the dancer's clip)" {
		t.Errorf("lip-sync video_url named %q (%v)", got.Name, ok)
	}
}

// A pause marker that lost its closing # is named alone and pointed at
// where it stands: at the very start of the text, followed by a space,
// and followed at once by the next marker.
func TestAnUnclosedMarkerAtTheEdges(t *testing.T) {
	for _, c := range []struct{ text, marker string }{
		{"<#1.5 hello there", "<#1.5"},
		{"Hello <# there", "<#"},
		{"Hello <#<#2#> there", "<#"},
		{"Hello <#> there <#1#> friend", "<#>"},
		{"Hi <#1#> there<#2 friend", "<#2"},
	} {
		_, err := SplitPauses(c.text, PausesTTS)
		var pe *PauseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: %v, want the marker %q named", c.text, err, c.marker)
			continue
		}
		want := "pause " + c.marker + ": a marker ends with #>, as <#1.5#>"
		if pe.Message != want || c.text[pe.Offset:pe.Offset+pe.Length] != c.marker {
			t.Errorf("%q: %q at %q, want %q", c.text, pe.Message, c.text[pe.Offset:pe.Offset+pe.Length], want)
		}
	}
	// An empty marker is closed: it is refused for what it holds (no
	// number), not as one that lost its #.
	_, err := SplitPauses("Hello <##> there", PausesTTS)
	if err == nil || strings.Contains(err.Error(), "ends with #>") {
		t.Errorf("<##>: %v", err)
	}
}

// area and beast each belong to one template: a request that gives one to
// another template is told which template takes it.
func TestATemplateFieldNamesItsTemplate(t *testing.T) {
	photo := `"images":["https://example.com/a.png"]`
	for field, owner := range map[string]string{"area": "exotic_princess", "beast": "beast_companion"} {
		errs := Validate(api.OpTemplate2Video, decode(t, `{"template":"hugging","prompt":"a hug",`+photo+`,"`+field+`":"auto"}`))
		want := field + ": only the " + owner + " template takes it"
		if len(errs) != 1 || errs[0].Message != want {
			t.Errorf("%s on hugging: %v, want %q", field, errs, want)
		}
	}
}

// "bgm: no effect for svcq2 when duration is 9 or 10": the form and the
// model's description say so for svcq2, and only for svcq2.
func TestTheBGMCaveatIsSvcq2s(t *testing.T) {
	for model, want := range map[string]bool{"svcq2": true, "svcq1": false, "svcq2-pro": false} {
		spec, err := Lookup(api.OpReference2Video, model)
		if err != nil {
			t.Fatal(err)
		}
		f, ok := spec.Field("bgm")
		if !ok {
			t.Fatalf("%s has no bgm", model)
		}
		if got := strings.Contains(f.Help, "9 or 10"); got != want {
			t.Errorf("%s bgm: %q", model, f.Help)
		}
	}
}
