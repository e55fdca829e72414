package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"clapper/api"
)

const vid = "https://example.com/v.mp4"

// mislabelledPNG is a PNG declared as a JPEG, as clients that label every
// image image/jpeg send it.
var mislabelledPNG = func() string {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 200, 150))); err != nil {
		panic(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}()

// Issue 11, item 11: "Requests that clients written for the real service
// send every day are refused by the sandbox with 400 FieldUnwanted. [...]
// The sandbox accepts and ignores a field its operation's table does not
// list, and an optional setting the spec gives only to other models".
// Bodies are raw JSON, as those clients send them (1.0 stays 1.0).
func TestBodiesOfRealServiceClientsAreAccepted(t *testing.T) {
	h := newHarness(t, Config{})
	tests := []struct {
		name    string
		op      api.Operation
		body    string
		ignored string
	}{
		// The examples, verbatim but for the URLs. style and bgm
		// are svcq1's since issue 30 (service notes, "The service in 2026").
		{"text2video svcq1", api.OpText2Video,
			`{"model":"svcq1","style":"general","prompt":"a cat","duration":5,"seed":0,"aspect_ratio":"16:9","resolution":"1080p","movement_amplitude":"auto","bgm":false}`,
			""},
		{"img2video svcq1", api.OpImg2Video,
			`{"model":"svcq1","images":["` + img + `"],"prompt":"","duration":5,"seed":0,"resolution":"1080p","movement_amplitude":"auto","bgm":false}`,
			""},
		// "style ... effective for svcq1 only"; bgm for the svcq1, svcq2
		// and svc2.0 families.
		{"style and bgm outside svcq1", api.OpText2Video,
			`{"model":"svcq3-pro","style":"anime","prompt":"a cat","bgm":true}`,
			"bgm,style"},
		{"lip-sync", api.OpLipSync,
			`{"video_url":"` + vid + `","text":"hello there friend","speed":1.0,"character_id":"male_1","volume":0,"language":"en"}`,
			"character_id,language"},
		{"timing2audio payload", api.OpTiming2Audio,
			`{"model":"audio1.0","timing_prompts":[{"from":0,"to":2,"prompt":"rain"}],"payload":"pp"}`,
			"payload"},
		{"reference2video svcq2 subjects", api.OpReference2Video,
			`{"model":"svcq2","prompt":"[@s] runs","duration":5,"movement_amplitude":"auto","subjects":[{"name":"s","images":["` + img + `"]}]}`,
			"movement_amplitude"},
		{"subject named by id", api.OpReference2Video,
			`{"model":"svcq2","prompt":"[@cat] runs","subjects":[{"id":"cat","images":["` + img + `"]}]}`,
			""},
		{"subject with a name and an id", api.OpReference2Video,
			`{"model":"svcq3","prompt":"[@cat] runs","subjects":[{"name":"cat","id":"c-1","images":["` + img + `"]}]}`,
			"subjects[0].id"},
		// Optional settings the spec gives only to other models, at values
		// that would ask for something.
		{"movement_amplitude outside svcq1", api.OpText2Video,
			`{"model":"svcq3-pro","prompt":"waves","movement_amplitude":"large"}`,
			"movement_amplitude"},
		{"bgm and off_peak where svcq4-preview shows none", api.OpReference2Video,
			`{"model":"svcq4-preview","images":["` + img + `"],"prompt":"a cat","bgm":true,"off_peak":true}`,
			"bgm,off_peak"},
		{"off_peak with audio where the model shows no off_peak", api.OpReference2Video,
			`{"model":"svcq3-drama","images":["` + img + `"],"prompt":"a cat","audio":true,"off_peak":true}`,
			"off_peak"},
		{"auto_subjects for svcq3-mix", api.OpReference2Video,
			`{"model":"svcq3-mix","images":["` + img + `"],"prompt":"a cat","auto_subjects":true}`,
			"auto_subjects"},
		{"voice_id outside the svcq1 family", api.OpImg2Video,
			`{"model":"svcq3-turbo","images":["` + img + `"],"voice_id":"professional_host"}`,
			"voice_id"},
		{"model of an operation without models", api.OpAudioTTS,
			`{"model":"speech-2","text":"Hello there.","voice_setting_voice_id":"professional_host","format":"mp3"}`,
			"format,model"},
		// Issue 23: the service past the spec's tables.
		{"text2video svcq2", api.OpText2Video,
			`{"model":"svcq2","prompt":"a cat","duration":8,"resolution":"1080p","aspect_ratio":"9:16"}`, ""},
		{"img2video svcq2-pro-fast with audio_type", api.OpImg2Video,
			`{"model":"svcq2-pro-fast","images":["` + img + `"],"duration":10,"resolution":"1080p","audio":true,"audio_type":"speech_only"}`, ""},
		{"start-end2video svcq2-turbo is_rec", api.OpStartEnd2Video,
			`{"model":"svcq2-turbo","images":["` + img + `","` + img + `"],"duration":8,"is_rec":true}`, ""},
		{"a system voice", api.OpAudioTTS,
			`{"text":"Hello there.","voice_setting_voice_id":"English_Graceful_Lady","voice_setting_emotion":"surprised"}`, ""},
		{"a PNG labelled as JPEG", api.OpImg2Video,
			`{"model":"svcq3-turbo","images":["` + mislabelledPNG + `"]}`, "images[0].content_type"},
		{"an upload URI from elsewhere", api.OpImg2Video,
			`{"model":"svcq2-pro","images":["ssupload:?id=884213"]}`, ""},
		{"unknown field at null", api.OpTemplateStory,
			`{"story":"love_story","images":["` + img + `"],"extra":null}`,
			"extra"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, hdr, raw := h.call(http.MethodPost, tc.op.Path(), tc.body, nil)
			if status != http.StatusOK {
				t.Fatalf("HTTP %d: %s", status, raw)
			}
			if got := hdr.Get(IgnoredFieldsHeader); got != tc.ignored {
				t.Errorf("%s = %q, want %q", IgnoredFieldsHeader, got, tc.ignored)
			}
			// Nothing ignored: no header at all, not an empty one.
			if set := len(hdr.Values(IgnoredFieldsHeader)) > 0; set != (tc.ignored != "") {
				t.Errorf("%s sent %v with %q ignored", IgnoredFieldsHeader, set, tc.ignored)
			}
			var echo map[string]any
			if err := json.Unmarshal(raw, &echo); err != nil {
				t.Fatal(err)
			}
			for _, k := range strings.Split(tc.ignored, ",") {
				if _, ok := echo[k]; ok && k != "" {
					t.Errorf("the echo repeats the ignored %s: %s", k, raw)
				}
			}
		})
	}
}

// An ignored setting is not used: svcq4-preview has no off-peak, so the
// task is neither held for the window nor priced at half.
func TestIgnoredSettingsAreNotUsed(t *testing.T) {
	h := newHarness(t, Config{})
	body := `{"model":"svcq4-preview","images":["` + img + `"],"prompt":"a cat","off_peak":true}`
	status, _, raw := h.call(http.MethodPost, api.OpReference2Video.Path(), body, nil)
	if status != http.StatusOK {
		t.Fatalf("HTTP %d: %s", status, raw)
	}
	var echo map[string]any
	if err := json.Unmarshal(raw, &echo); err != nil {
		t.Fatal(err)
	}
	r := h.get(echo["task_id"].(string))
	full := price(api.OpReference2Video, map[string]any{"model": "svcq4-preview", "duration": 5, "resolution": "720p"}, 0)
	if offPeak := r.OffPeak != nil && *r.OffPeak; offPeak || int(r.Credits) != full {
		t.Errorf("off_peak %v, credits %d; want false and the full %d", offPeak, r.Credits, full)
	}
}

func TestSubjectIDIsEchoedAsItsName(t *testing.T) {
	h := newHarness(t, Config{})
	m := h.create(api.OpReference2Video, map[string]any{"model": "svcq2", "prompt": "[@cat] runs",
		"subjects": []any{map[string]any{"id": "cat", "images": []string{img}}}})
	subs, _ := m["subjects"].([]any)
	if len(subs) != 1 {
		t.Fatalf("echo subjects = %v", m["subjects"])
	}
	if s := subs[0].(map[string]any); s["name"] != "cat" || s["id"] != nil {
		t.Errorf("echoed subject = %v, want the name cat and no id", s)
	}
}

// "it still refuses broken values, counts and lengths, and the spec's
// explicit refusals (videos outside svcq2-pro, subjects for svcq3-mix,
// sounds outside svcq3-drama and svcq4-preview, off_peak with audio)".
func TestLeniencyStillRefusesWhatTheSpecRefuses(t *testing.T) {
	h := newHarness(t, Config{})
	eight := `"` + strings.Repeat(img+`","`, 7) + img + `"`
	tests := []struct {
		name          string
		op            api.Operation
		body          string
		reason, field string
		ignored       string
	}{
		{"videos outside svcq2-pro", api.OpReference2Video,
			`{"model":"svcq2","images":["` + img + `"],"prompt":"a cat","videos":["` + vid + `"]}`,
			api.ReasonFieldUnwanted, "videos", ""},
		{"subjects for svcq3-mix", api.OpReference2Video,
			`{"model":"svcq3-mix","prompt":"[@s] runs","subjects":[{"name":"s","images":["` + img + `"]}]}`,
			api.ReasonFieldUnwanted, "subjects", ""},
		{"sounds outside svcq3-drama and svcq4-preview", api.OpReference2Video,
			`{"model":"svcq3","images":["` + img + `"],"prompt":"a cat","sounds":["https://example.com/s.mp3"]}`,
			api.ReasonFieldUnwanted, "sounds", ""},
		{"sounds for svcq2-pro", api.OpReference2Video,
			`{"model":"svcq2-pro","images":["` + img + `"],"prompt":"a cat","sounds":["https://example.com/s.mp3"]}`,
			api.ReasonFieldUnwanted, "sounds", ""},
		{"off_peak with audio", api.OpReference2Video,
			`{"model":"svcq2","images":["` + img + `"],"prompt":"a cat","audio":true,"off_peak":true}`,
			api.ReasonFieldInvalid, "off_peak", ""},
		{"off_peak with the default audio", api.OpText2Video,
			`{"model":"svcq1","prompt":"a cat","off_peak":true,"negative_prompt":"blur"}`,
			api.ReasonFieldInvalid, "off_peak", "negative_prompt"},
		{"broken value beside an ignored field", api.OpText2Video,
			`{"model":"svcq1","negative_prompt":"blur","prompt":"a cat","movement_amplitude":"huge"}`,
			api.ReasonFieldInvalid, "movement_amplitude", "negative_prompt"},
		{"wrong type", api.OpText2Video,
			`{"model":"svcq3-pro","prompt":"a cat","duration":"5s","bgm":false}`,
			api.ReasonFieldInvalid, "duration", "bgm"},
		{"out of range", api.OpText2Video,
			`{"model":"svcq3-pro","prompt":"a cat","duration":20}`,
			api.ReasonFieldInvalid, "duration", ""},
		{"count", api.OpReference2Video,
			`{"model":"svcq2","images":[` + eight + `],"prompt":"a cat","movement_amplitude":"auto"}`,
			api.ReasonFieldItemCountOutOfRange, "images", "movement_amplitude"},
		{"length", api.OpText2Video,
			`{"model":"svcq3-pro","prompt":"` + strings.Repeat("x", 5001) + `"}`,
			api.ReasonFieldInvalid, "prompt", ""},
		{"negative lip-sync volume", api.OpLipSync,
			`{"video_url":"` + vid + `","text":"hello","volume":-1,"language":"en"}`,
			api.ReasonFieldInvalid, "volume", "language"},
		{"timing outside the duration", api.OpTiming2Audio,
			`{"model":"audio1.0","duration":5,"timing_prompts":[{"from":0,"to":6,"prompt":"rain"}],"payload":"pp"}`,
			api.ReasonFieldInvalid, "timing_prompts", "payload"},
		{"subject by id with too many images", api.OpReference2Video,
			`{"model":"svcq2","prompt":"[@cat] runs","subjects":[{"id":"cat","images":["` + img + `","` + img + `","` + img + `","` + img + `"]}]}`,
			api.ReasonFieldItemCountOutOfRange, "subjects", ""},
		{"subject with neither name nor id", api.OpReference2Video,
			`{"model":"svcq2","prompt":"a cat","subjects":[{"images":["` + img + `"]}]}`,
			api.ReasonFieldLacking, "subjects", ""},
		{"unknown model", api.OpText2Video,
			`{"model":"svcq9","prompt":"a cat","style":"general"}`,
			api.ReasonFieldInvalid, "model", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, hdr, raw := h.call(http.MethodPost, tc.op.Path(), tc.body, nil)
			rejection(t, status, hdr, raw, http.StatusBadRequest, tc.reason, tc.field)
			if got := hdr.Get(IgnoredFieldsHeader); got != tc.ignored {
				t.Errorf("%s = %q, want %q", IgnoredFieldsHeader, got, tc.ignored)
			}
		})
	}
	_, _, raw := h.call(http.MethodGet, "/_sandbox/tasks", nil, nil)
	if string(raw) != "[]" {
		t.Errorf("refused requests created tasks: %s", raw)
	}
}

// Edit and compose bodies are read as leniently: an unknown field does not
// hide the real answer (here, that the scene is still running).
func TestEditAndComposeIgnoreUnknownFields(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.createID(api.OpGeneralOneClick, samples[api.OpGeneralOneClick])
	j, err := h.client.GetOneClick(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	scene := j.JobRecords[0].Jobs[0].ID
	base := api.OpGeneralOneClick.Path() + "/" + id
	for _, tc := range []struct {
		path, body, field, ignored string
	}{
		{base + "/edit", `{"job_id":"` + scene + `","prompt":"rain","style":"noir"}`, "job_id", "style"},
		{base + "/compose", `{"job_ids":["` + scene + `"],"transition":"fade"}`, "job_ids", "transition"},
	} {
		status, hdr, raw := h.call(http.MethodPost, tc.path, tc.body, nil)
		rejection(t, status, hdr, raw, http.StatusBadRequest, api.ReasonOperationInProcess, tc.field)
		if got := hdr.Get(IgnoredFieldsHeader); got != tc.ignored {
			t.Errorf("%s: %s = %q, want %q", tc.path, IgnoredFieldsHeader, got, tc.ignored)
		}
	}
}
