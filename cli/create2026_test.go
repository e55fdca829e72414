package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// The operations of 2026 through `clapper create --dry-run`: local files in
// key frames are read, numbers go as numbers, and the rules of the notes
// are held before anything is sent.
func TestCreateNewOperationsDryRun(t *testing.T) {
	dir := t.TempDir()
	png := writePNG(t, dir, "frame.png", 200, 200)
	r := runCLI(t, nil, "", "create", "multiframe", "--dry-run", "--set", "model=svcq2-pro", "--set", "start_image="+png,
		"--set", `image_settings:=[{"key_image":"`+png+`","prompt":"it turns","duration":3},{"key_image":"https://e.com/k.png","duration":7.0}]`)
	if r.code != 0 {
		t.Fatalf("multiframe: exit %d: %s", r.code, r.err)
	}
	body := decodeDryRun(t, r.out)
	frames, _ := body["image_settings"].([]any)
	first, _ := frames[0].(map[string]any)
	second, _ := frames[1].(map[string]any)
	if s, _ := body["start_image"].(string); !strings.HasPrefix(s, "data:image/png;base64,") {
		t.Errorf("start_image sent as %.60v", body["start_image"])
	}
	if s, _ := first["key_image"].(string); !strings.HasPrefix(s, "data:image/png;base64,") {
		t.Errorf("a key frame's local image sent as %.60v", first["key_image"])
	}
	if first["duration"] != json.Number("3") || second["duration"] != json.Number("7") {
		t.Errorf("key frame durations sent as %#v and %#v, want the numbers 3 and 7", first["duration"], second["duration"])
	}
	r = runCLI(t, nil, "", "create", "text2audio", "--dry-run", "--set", "model=audio1.0", "--set", "prompt=rain", "--set", "duration=2.5", "--set", "seed=0")
	if body := decodeDryRun(t, r.out); r.code != 0 || body["duration"] != json.Number("2.5") || body["seed"] != json.Number("0") {
		t.Errorf("text2audio: exit %d %s, sent %v", r.code, r.err, body)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"extend", "--set", "model=svcq2-pro"}, "video_creation_id: required, or video_url"},
		{[]string{"extend", "--set", "model=svcq2-pro", "--set", "video_url=clip.mp4"}, "video_url: must be an http(s) URL"},
		{[]string{"upscale-new", "--set", "video_creation_id=1", "--set", "upscale_resolution=720p"}, "upscale_resolution: upscale-new accepts 1080p, 2K, 4K, 8K"},
		{[]string{"multiframe", "--set", "model=svcq2-pro", "--set", "start_image=https://e.com/s.png", "--set", `image_settings:=[{"key_image":"https://e.com/k.png","duration":8}]`},
			"image_settings: svcq2-pro takes 2 to 9 key frames, got 1"},
		{[]string{"template2video", "--set", "template=hugging", "--set", "images=https://e.com/a.png", "--set", "area=japan"}, "area: only the exotic_princess template takes it"},
		{[]string{"img2video", "--set", "model=svc1.5", "--set", "images=https://e.com/a.png"}, "svc1.5 is retired"},
		{[]string{"multiframe", "--set", "image_settings=k.png"}, "image_settings: a list of objects; give it as JSON"},
	} {
		r := runCLI(t, nil, "", append(append([]string{"create"}, c.args...), "--dry-run")...)
		if r.code != 2 || !strings.Contains(r.err, c.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.err, c.err)
		}
	}
}

// Issue 30, item 3: the official text2audio example's "duration": "10",
// "seed": "0" are taken, and clapper sends the numbers; where no example
// sends a string, it is refused as the wrong type before anything is sent.
func TestNumbersGivenAsStringsAreSentAsNumbers(t *testing.T) {
	r := runCLI(t, nil, "", "create", "text2audio", "--dry-run", "--set", "model=audio1.0", "--set", "prompt=rain",
		"--set", `duration:="10"`, "--set", `seed:="0"`)
	if body := decodeDryRun(t, r.out); r.code != 0 || body["duration"] != json.Number("10") || body["seed"] != json.Number("0") {
		t.Errorf("text2audio with strings: exit %d %s, sent %#v", r.code, r.err, body)
	}
	r = runCLI(t, nil, "", "create", "text2video", "--dry-run", "--set", "model=svcq3-pro", "--set", "prompt=rain", "--set", `duration:="10"`)
	if r.code != 2 || !strings.Contains(r.err, `duration: must be a whole number, got "10"`) {
		t.Errorf("text2video duration as a string: exit %d, stderr %q", r.code, r.err)
	}
}

// Issue 30, item 5: `clapper models` marks each rule beyond the spec with
// its source, numbered under its model: the notes' section, and which of
// their sources where only one says it or they disagree.
func TestModelsShowWhereEachRuleWasRead(t *testing.T) {
	r := runCLI(t, nil, "", "models", "img2video")
	if r.code != 0 {
		t.Fatalf("models img2video: exit %d %s", r.code, r.err)
	}
	svcq3pro := section(r.out, "model svcq3-pro (spec)\n")
	for _, want := range []string{
		"one of 540p, 720p, 1080p, 2K", "[service 1]  output resolution (2K: one source only)",
		"[service 2]  which audio to make", "[spec]  ",
		"\n  1: notes, The service in 2026: one source (ComfyUI's node and its proxy's prices)",
		"\n  2: notes, The service in 2026: mirrors of the official q3 pages\n",
	} {
		if !strings.Contains(svcq3pro, want) {
			t.Errorf("svcq3-pro lacks %q:\n%s", want, svcq3pro)
		}
	}
	svc20 := section(r.out, "model svc2.0 (service 1)\n")
	if !strings.Contains(svc20, "one of 4, 8 seconds") || !strings.Contains(svc20, "\n  1: notes, The service in 2026: svc2.0 is still served") {
		t.Errorf("svc2.0:\n%s", svc20)
	}
	r = runCLI(t, nil, "", "models", "text2audio")
	if !strings.Contains(r.out, "also a numeric string  [service 2]") || !strings.Contains(r.out, "2: notes, The service in 2026: numbers as strings") {
		t.Errorf("text2audio:\n%s", r.out)
	}
	// A retired model is said with its source, until a catalog file
	// brings it back.
	const gone = "\nretired: svc1.5 (notes, The service in 2026: only older pages list it; catalog.json can bring it back)\n"
	if r = runCLI(t, nil, "", "models", "start-end2video"); !strings.Contains(r.out, gone) {
		t.Errorf("start-end2video does not say svc1.5 is retired:\n%.300s", r.out)
	}
	p := writeCatalog(t, `[{"operation":"start-end2video","models":[{"model":"svc1.5","like":"svcq2-turbo"}]}]`)
	if r = runCLI(t, nil, "", "--catalog", p, "models", "start-end2video"); strings.Contains(r.out, "retired") || !strings.Contains(r.out, "model svc1.5 (user)") {
		t.Errorf("svc1.5 brought back:\n%.300s", r.out)
	}
}

// section is one model's part of `clapper models OP`: from its header to
// the next model's.
func section(out, header string) string {
	_, rest, ok := strings.Cut(out, header)
	if !ok {
		return ""
	}
	s, _, _ := strings.Cut(rest, "\nmodel ")
	return s
}
