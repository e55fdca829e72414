package cli

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 11 items 12 and 14-19 through `create --dry-run`: what is printed
// is exactly what would be sent.

func TestCreateEdgeCasesDryRun(t *testing.T) {
	dir := t.TempDir()
	png := writePNG(t, dir, "frame.png", 200, 200)
	raw, _ := os.ReadFile(png)
	upper := "DATA:image/png;base64," + base64.StdEncoding.EncodeToString(raw)
	os.WriteFile(filepath.Join(dir, "single.json"), []byte(`{"model":"svcq3-pro","images":"frame.png"}`), 0o600)
	clip := filepath.Join(dir, "clip.mp4")
	os.WriteFile(clip, []byte("\x00\x00\x00\x18ftypmp42"), 0o600)
	t2v := []string{"text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"}
	tts := []string{"audio-tts", "--set", "text=hi", "--set", "voice_setting_voice_id=v1"}
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		sent  map[string]any // fields the printed body must hold (nil value: must lack)
		err   string         // exit 2 with this on stderr
	}{
		// 15. Empty means unset (not sent); a wrong type is a field error.
		{name: "empty value unsets", args: append(t2v, "--set", "duration="), sent: map[string]any{"duration": nil}},
		{name: "empty value unsets the file's", stdin: `{"model":"svcq3-pro","prompt":"p","duration":8}`, args: []string{"text2video", "-f", "-", "--set", "duration="}, sent: map[string]any{"duration": nil}},
		{name: "null not forwarded", args: append(t2v, "--set", "seed:=null"), sent: map[string]any{"seed": nil}},
		{name: "empty string in a file not forwarded", stdin: `{"model":"svcq3-pro","prompt":"p","duration":"","payload":null}`, args: []string{"text2video", "-f", "-"}, sent: map[string]any{"duration": nil, "payload": nil}},
		{name: "empty list for a boolean", args: append(t2v, "--set", "audio:=[]"), err: "audio: must be true or false, got an empty list"},

		// 16. Number spellings.
		{name: "speed .5", args: append(tts, "--set", "voice_setting_speed=.5"), sent: map[string]any{"voice_setting_speed": "0.5"}},
		{name: "speed +1", args: append(tts, "--set", "voice_setting_speed=+1"), sent: map[string]any{"voice_setting_speed": "1"}},
		{name: "volume 05", args: append(tts, "--set", "voice_setting_volume=05"), sent: map[string]any{"voice_setting_volume": "5"}},
		{name: "speed 1.", args: append(tts, "--set", "voice_setting_speed=1."), sent: map[string]any{"voice_setting_speed": "1"}},
		{name: "speed as a word", args: append(tts, "--set", "voice_setting_speed=fast"), err: `voice_setting_speed: must be a number, got "fast"`},
		{name: "duration 5.0", args: append(t2v, "--set", "duration=5.0"), sent: map[string]any{"duration": "5"}},
		{name: "duration 1e1", args: append(t2v, "--set", "duration=1e1"), sent: map[string]any{"duration": "10"}},
		{name: "duration 5.0 in a file", stdin: `{"model":"svcq3-pro","prompt":"p","duration":5.0}`, args: []string{"text2video", "-f", "-"}, sent: map[string]any{"duration": "5"}},
		{name: "duration 5.5", args: append(t2v, "--set", "duration=5.5"), err: "duration: must be a whole number, got 5.5"},
		{name: "long seed kept digit for digit", args: append(t2v, "--set", "seed=+0009007199254740991"), sent: map[string]any{"seed": "9007199254740991"}},

		// 17. A single image string is sent as a list of one.
		{name: "single image string", args: []string{"img2video", "--set", "model=svcq3-pro", "--set", `images:="https://e.com/a.png"`}, sent: map[string]any{"images": []any{"https://e.com/a.png"}}},
		{name: "single image path in a file", args: []string{"img2video", "-f", filepath.Join(dir, "single.json")}, sent: map[string]any{"images": "list of a data URI"}},
		{name: "local video for one media field", args: []string{"lip-sync", "--set", "video_url=" + clip, "--set", "text=hello"}, sent: map[string]any{"video_url": "a video data URI"}},

		// 18.
		{name: "prompt of spaces", args: []string{"text2video", "--set", "model=svcq3-pro", "--set", "prompt=   "}, err: "prompt: required"},
		{name: "[@dog] names no subject", args: []string{"reference2video", "--set", "model=svcq2", "--set", "prompt=[@cat] and [@dog]", "--set", `subjects:=[{"name":"cat","images":["https://e.com/c.png"]}]`},
			err: "prompt: [@dog] names no subject; subjects are named cat"},
		{name: "seed -1", args: append(t2v, "--set", "seed=-1"), sent: map[string]any{"seed": "-1"}},
		{name: "timing from == to", args: []string{"timing2audio", "--set", "model=audio1.0", "--set", `timing_prompts:=[{"from":2,"to":2,"prompt":"click"}]`},
			sent: map[string]any{"timing_prompts": []any{map[string]any{"from": 2, "to": 2, "prompt": "click"}}}},

		// 19.
		{name: "upper-case DATA: URI", args: []string{"img2video", "--set", "model=svcq3-pro", "--set", "images=" + upper}, sent: map[string]any{"images": "list of a data URI"}},
		{name: "one problem", args: []string{"img2video", "--set", "model=svcq3-pro", "--set", "images=https://e.com/1", "--set", "images=https://e.com/2"},
			err: "img2video request not sent: 1 problem\n  images: svcq3-pro takes exactly 1 image, got 2"},
		{name: "model as an object", args: []string{"text2video", "--set", `model:={"a":1}`, "--set", "prompt=p"}, err: "model: must be one of svcq3-pro, svcq3-turbo, svcq1, svcq2, got an object"},

		// 12. A field no table names is refused with the nearest one.
		{name: "typo in --set", args: []string{"reference2video", "--set", "model=svcq2", "--set", "bmg=true"}, err: "bmg: not a field of reference2video; did you mean bgm?"},
		{name: "typo in a file", stdin: `{"model":"svcq2","prompt":"p","images":["https://e.com/1"],"bmg":true}`, args: []string{"reference2video", "-f", "-"}, err: "bmg: not a field of reference2video; did you mean bgm?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, nil, c.stdin, append(append([]string{"create"}, c.args...), "--dry-run")...)
			if c.err != "" {
				if r.code != 2 || !strings.Contains(r.err, c.err) {
					t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.err, c.err)
				}
				if strings.Contains(r.err, "(s)") {
					t.Errorf("stderr %q hedges its plural", r.err)
				}
				return
			}
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			body := decodeDryRun(t, r.out)
			for k, want := range c.sent {
				got, present := body[k]
				switch want := want.(type) {
				case nil:
					if present {
						t.Errorf("%s sent as %v", k, got)
					}
				case string:
					if want == "a video data URI" {
						if s, _ := got.(string); !strings.HasPrefix(s, "data:video/mp4;base64,") {
							t.Errorf("%s sent as %.60v", k, got)
						}
					} else if want == "list of a data URI" {
						l, _ := got.([]any)
						if s, _ := l[0].(string); len(l) != 1 || !strings.HasPrefix(s, "data:image/png;base64,") {
							t.Errorf("%s sent as %.60v", k, got)
						}
					} else if n, ok := got.(json.Number); !ok || string(n) != want {
						t.Errorf("%s sent as %#v, want the number %s", k, got, want)
					}
				default:
					if g, _ := json.Marshal(got); string(g) != mustJSON(t, want) {
						t.Errorf("%s sent as %s, want %s", k, g, mustJSON(t, want))
					}
				}
			}
		})
	}
}

func decodeDryRun(t *testing.T, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		t.Fatalf("dry run printed %q: %v", out, err)
	}
	return body
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// 12. "--force sends a request the catalog refuses, printing the rules it
// breaks first; the service's answer is final."
func TestForceSendsWhatTheCatalogRefuses(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/reference2video": {
		`{"task_id":"t1","state":"created","credits":1}`,
		`{"code":400,"reason":"FieldInvalid","message":"invalid field: duration","metadata":{"trace_id":"tr-1"}}`,
	}}, statuses: map[string]int{}}
	args := []string{"create", "reference2video", "--set", "model=svcq2", "--set", "prompt=p", "--set", "images=https://e.com/1",
		"--set", "duration=40", "--set", "bmg=true", "--set", `extra:={"k":[1]}`, "--force"}
	r := runCLI(t, svc, "", args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for _, want := range []string{"warning: --force: this reference2video request breaks 3 rules; the service decides",
		"duration: svcq2 accepts 1 to 10 seconds, got 40", "bmg: not a field of reference2video; did you mean bgm?", "extra: not a field"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}
	if !strings.Contains(r.out, "reference2video task t1 (#1): created, 1 credit\n") {
		t.Errorf("output %q", r.out)
	}
	if len(svc.got) != 1 {
		t.Fatalf("%d requests sent", len(svc.got))
	}
	sent := svc.got[0].body
	if sent["duration"] != json.Number("40") || sent["bmg"] != "true" || mustJSON(t, sent["extra"]) != `{"k":[1]}` {
		t.Errorf("sent %v", sent)
	}

	// The service's refusal is the answer: exit 1 with its reason.
	svc.statuses["POST /ent/v2/reference2video"] = 400
	r = runCLI(t, svc, "", args...)
	if r.code != 1 || !strings.Contains(r.err, "FieldInvalid") || !strings.Contains(r.err, "invalid field: duration") {
		t.Errorf("refused forced request: exit %d, %q", r.code, r.err)
	}

	// Without --force nothing is sent.
	before := len(svc.got)
	if r := runCLI(t, svc, "", args[:len(args)-1]...); r.code != 2 || len(svc.got) != before {
		t.Errorf("unforced: exit %d, %d requests sent", r.code, len(svc.got)-before)
	}
}
