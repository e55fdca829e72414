package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"clapper/api"
	"clapper/internal/textutil"
)

// This test holds a second, independent transcription of the spec's model
// tables (spec/service-api.md). Every bound becomes one accepted case at the
// bound and one rejected case just past it, so loosening any single rule in
// tables.go fails here.

type bound struct{ def, min, max int }

type modelRow struct {
	op, model    string
	base         string // a minimal valid request
	duration     *bound // nil: not shown or not a field
	resDef       string
	res          []string // nil: not shown
	ratioDef     string
	ratios       []string
	anyRatio     bool
	imgMin       int
	imgMax       int // -1: no bound shown
	promptMax    int
	audioDef     *bool
	unwanted     map[string]any // fields this model refuses with these values
	acceptsFalse []string       // flags the model lacks but tolerates at false
}

var (
	yes, no          = true, false
	allRes           = []string{"540p", "720p", "1080p", "2K", "4K"}
	allRatios        = []string{"1:1", "9:16", "16:9", "3:4", "4:3", "21:9", "2:3", "3:2", "auto"}
	r2vRatios        = []string{"1:1", "9:16", "16:9", "3:4", "4:3", "auto"}
	fiveRatios       = []string{"16:9", "1:1", "9:16", "3:4", "4:3"}
	img              = `"https://example.com/a.png"`
	r2vBase          = func(m string) string { return `{"model":"` + m + `","images":[` + img + `],"prompt":"a cat"}` }
	noVideosSubjects = map[string]any{"videos": []any{"https://example.com/v.mp4"}}
)

var modelRows = []modelRow{
	// POST /ent/v2/reference2video model table.
	{op: "reference2video", model: "svcq1", base: r2vBase("svcq1"), duration: &bound{5, 5, 5}, resDef: "1080p", res: []string{"1080p"}, ratioDef: "16:9", ratios: r2vRatios, imgMin: 1, imgMax: 7, promptMax: 5000, audioDef: &no,
		unwanted: noVideosSubjects},
	{op: "reference2video", model: "svcq2", base: r2vBase("svcq2"), duration: &bound{5, 1, 10}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, ratioDef: "16:9", ratios: r2vRatios, anyRatio: true, imgMin: 1, imgMax: 7, promptMax: 5000, audioDef: &no,
		unwanted: map[string]any{"movement_amplitude": "small", "videos": []any{"https://example.com/v.mp4"}, "sounds": []any{"https://example.com/s.mp3"}}},
	{op: "reference2video", model: "svcq2-pro", base: r2vBase("svcq2-pro"), duration: &bound{5, 1, 10}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, ratioDef: "16:9", ratios: r2vRatios, anyRatio: true, imgMin: 1, imgMax: 7, promptMax: 5000, audioDef: &no,
		unwanted: map[string]any{"movement_amplitude": "small", "sounds": []any{"https://example.com/s.mp3"}}},
	{op: "reference2video", model: "svcq3", base: r2vBase("svcq3"), duration: &bound{5, 3, 16}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, ratioDef: "16:9", ratios: r2vRatios, imgMin: 1, imgMax: -1, promptMax: 5000, audioDef: &yes,
		unwanted: map[string]any{"videos": []any{"https://example.com/v.mp4"}, "movement_amplitude": "auto"}},
	{op: "reference2video", model: "svcq3-turbo", base: r2vBase("svcq3-turbo"), duration: &bound{5, 3, 16}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, ratioDef: "16:9", ratios: r2vRatios, imgMin: 1, imgMax: -1, promptMax: 5000, audioDef: &yes,
		unwanted: map[string]any{"sounds": []any{"https://example.com/s.mp3"}}},
	{op: "reference2video", model: "svcq3-drama", base: r2vBase("svcq3-drama"), duration: &bound{8, 2, 16}, resDef: "1080p", res: []string{"720p", "1080p"}, ratioDef: "16:9", ratios: []string{"16:9", "9:16", "auto"}, imgMin: 1, imgMax: -1, promptMax: 5000, audioDef: &yes,
		unwanted: map[string]any{"off_peak": true}, acceptsFalse: []string{"off_peak"}},
	{op: "reference2video", model: "svcq3-mix", base: r2vBase("svcq3-mix"), duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"720p", "1080p"}, ratioDef: "16:9", ratios: r2vRatios, imgMin: 1, imgMax: -1, promptMax: 5000, audioDef: &yes,
		unwanted: map[string]any{"off_peak": true, "subjects": []any{map[string]any{"name": "a"}}}},
	{op: "reference2video", model: "svcq3-ad", base: r2vBase("svcq3-ad"), duration: &bound{5, 3, 15}, resDef: "720p", res: []string{"720p", "1080p"}, ratioDef: "16:9", ratios: r2vRatios, imgMin: 1, imgMax: -1, promptMax: 5000, audioDef: &yes,
		unwanted: map[string]any{"off_peak": true, "sounds": []any{"https://example.com/s.mp3"}}},
	{op: "reference2video", model: "svcq4-preview", base: r2vBase("svcq4-preview"), duration: &bound{5, 3, 16}, resDef: "720p", res: allRes, ratioDef: "16:9", ratios: fiveRatios, imgMin: 1, imgMax: 15, promptMax: 5000, audioDef: &yes,
		unwanted: map[string]any{"off_peak": true, "bgm": true, "subjects": []any{map[string]any{"name": "a"}}}, acceptsFalse: []string{"off_peak", "bgm"}},

	// POST /ent/v2/img2video.
	{op: "img2video", model: "svcq3-pro-fast", base: `{"model":"svcq3-pro-fast","images":[` + img + `]}`, duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"720p", "1080p"}, imgMin: 1, imgMax: 1, promptMax: 5000, audioDef: &yes,
		unwanted: map[string]any{"movement_amplitude": "small", "voice_id": "voice12345", "aspect_ratio": "16:9"}},
	{op: "img2video", model: "svcq3-turbo", base: `{"model":"svcq3-turbo","images":[` + img + `]}`, duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 1, imgMax: 1, promptMax: 5000, audioDef: &yes},
	{op: "img2video", model: "svcq3-pro", base: `{"model":"svcq3-pro","images":[` + img + `]}`, duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"540p", "720p", "1080p", "2K"}, imgMin: 1, imgMax: 1, promptMax: 5000, audioDef: &yes},
	{op: "img2video", model: "svcq1", base: `{"model":"svcq1","images":[` + img + `]}`, duration: &bound{5, 5, 5}, resDef: "1080p", res: []string{"1080p"}, imgMin: 1, imgMax: 1, promptMax: 2000, audioDef: &no},
	{op: "img2video", model: "svcq2-pro", base: `{"model":"svcq2-pro","images":[` + img + `]}`, duration: &bound{5, 1, 10}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 1, imgMax: 1, promptMax: 5000, audioDef: &no},
	{op: "img2video", model: "svcq2-turbo", base: `{"model":"svcq2-turbo","images":[` + img + `]}`, duration: &bound{5, 1, 10}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 1, imgMax: 1, promptMax: 5000, audioDef: &no},
	{op: "img2video", model: "svcq2-pro-fast", base: `{"model":"svcq2-pro-fast","images":[` + img + `]}`, duration: &bound{5, 1, 10}, resDef: "720p", res: []string{"720p", "1080p"}, imgMin: 1, imgMax: 1, promptMax: 5000, audioDef: &no},
	{op: "img2video", model: "svcq1-classic", base: `{"model":"svcq1-classic","images":[` + img + `]}`, duration: &bound{5, 5, 5}, resDef: "1080p", res: []string{"1080p"}, imgMin: 1, imgMax: 1, promptMax: 2000, audioDef: &no},

	// POST /ent/v2/text2video.
	{op: "text2video", model: "svcq3-pro", base: `{"model":"svcq3-pro","prompt":"a cat"}`, duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, ratioDef: "16:9", ratios: fiveRatios, imgMin: 0, imgMax: 0, promptMax: 5000, audioDef: &yes,
		unwanted: map[string]any{"images": []any{"https://example.com/a.png"}}},
	{op: "text2video", model: "svcq3-turbo", base: `{"model":"svcq3-turbo","prompt":"a cat"}`, duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, ratioDef: "16:9", ratios: fiveRatios, imgMin: 0, imgMax: 0, promptMax: 5000, audioDef: &yes},
	{op: "text2video", model: "svcq1", base: `{"model":"svcq1","prompt":"a cat"}`, duration: &bound{5, 5, 5}, resDef: "1080p", res: []string{"1080p"}, ratioDef: "16:9", ratios: fiveRatios, imgMin: 0, imgMax: 0, promptMax: 5000, audioDef: &yes},
	// The service layer (service-notes "Beyond the spec's tables").
	{op: "text2video", model: "svcq2", base: `{"model":"svcq2","prompt":"a cat"}`, duration: &bound{5, 1, 10}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, ratioDef: "16:9", ratios: fiveRatios, imgMin: 0, imgMax: 0, promptMax: 5000, audioDef: &yes},

	// POST /ent/v2/start-end2video.
	{op: "start-end2video", model: "svcq3-pro", base: `{"model":"svcq3-pro","images":[` + img + `,` + img + `]}`, duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000, audioDef: &yes},
	{op: "start-end2video", model: "svcq3-turbo", base: `{"model":"svcq3-turbo","images":[` + img + `,` + img + `]}`, duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000, audioDef: &yes},
	{op: "start-end2video", model: "svcq3-pro-fast", base: `{"model":"svcq3-pro-fast","images":[` + img + `,` + img + `]}`, duration: &bound{5, 1, 16}, resDef: "720p", res: []string{"720p", "1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000, audioDef: &yes},
	{op: "start-end2video", model: "svcq2-turbo", base: `{"model":"svcq2-turbo","images":[` + img + `,` + img + `]}`, duration: &bound{5, 1, 8}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000},
	{op: "start-end2video", model: "svcq2-pro", base: `{"model":"svcq2-pro","images":[` + img + `,` + img + `]}`, duration: &bound{5, 1, 8}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000},
	{op: "start-end2video", model: "svcq2-pro-fast", base: `{"model":"svcq2-pro-fast","images":[` + img + `,` + img + `]}`, duration: &bound{5, 1, 8}, resDef: "720p", res: []string{"720p", "1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000},
	{op: "start-end2video", model: "svcq1", base: `{"model":"svcq1","images":[` + img + `,` + img + `]}`, duration: &bound{5, 5, 5}, resDef: "1080p", res: []string{"1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000},
	{op: "start-end2video", model: "svcq1-classic", base: `{"model":"svcq1-classic","images":[` + img + `,` + img + `]}`, duration: &bound{5, 5, 5}, resDef: "1080p", res: []string{"1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000},

	// POST /ent/v2/reference2image.
	{op: "reference2image", model: "svcq1", base: `{"model":"svcq1","images":[` + img + `],"prompt":"a cat"}`, resDef: "1080p", res: []string{"1080p"}, ratioDef: "16:9", ratios: []string{"16:9", "9:16", "1:1", "3:4", "4:3"}, imgMin: 1, imgMax: 7, promptMax: 2000,
		unwanted: map[string]any{"duration": 5, "off_peak": true, "watermark": true}},
	{op: "reference2image", model: "svcq2", base: `{"model":"svcq2","images":[` + img + `],"prompt":"a cat"}`, resDef: "1080p", res: []string{"1080p", "2K", "4K"}, ratioDef: "16:9", ratios: []string{"16:9", "9:16", "1:1", "3:4", "4:3", "21:9", "2:3", "3:2", "auto"}, imgMin: 0, imgMax: 7, promptMax: 2000},

	// Operations with one rule set.
	{op: "timing2audio", model: "audio1.0", base: `{"model":"audio1.0","timing_prompts":[{"from":0,"to":1,"prompt":"door"}]}`},
	{op: "template-story", base: `{"story":"love_story","images":[` + img + `]}`, imgMin: 1, imgMax: -1},
	{op: "trending-replicate", base: `{"video_url":"https://example.com/v.mp4"}`, resDef: "1080p", res: []string{"540p", "720p", "1080p"}, ratios: []string{"16:9", "1:1", "9:16", "4:3", "3:4"}, imgMin: 0, imgMax: -1, promptMax: 2000},
	{op: "mv", base: `{"images":[` + img + `],"audio_url":"https://example.com/song.mp3"}`, resDef: "720p", res: []string{"540p", "720p", "1080p"}, ratioDef: "16:9", ratios: []string{"1:1", "16:9", "9:16", "4:3", "3:4"}, imgMin: 1, imgMax: 7, promptMax: 3000},
	{op: "premium_mv", base: `{"premium_mv_mode":"perform","images":[` + img + `],"audio_url":"https://example.com/song.mp3"}`, resDef: "720p", res: []string{"720p", "1080p"}, ratioDef: "16:9", ratios: []string{"1:1", "16:9", "9:16", "4:3", "3:4"}, imgMin: 1, imgMax: 6, promptMax: 3000},
	{op: "general_one_click", base: `{"images":[` + img + `],"duration":30}`, ratioDef: "16:9", ratios: []string{"1:1", "16:9", "9:16", "4:3", "3:4"}, imgMin: 1, imgMax: 7, promptMax: 3000},

	// The service in 2026 (service notes): svc2.0, still served (4 or 8 s
	// checked apart: the bounds here are 4 and 8).
	{op: "img2video", model: "svc2.0", base: `{"model":"svc2.0","images":[` + img + `]}`, duration: &bound{4, 4, 8}, resDef: "360p", res: []string{"720p", "1080p"}, imgMin: 1, imgMax: 1, promptMax: 2000,
		unwanted: map[string]any{"audio": true, "voice_id": "voice12345", "audio_type": "all"}, acceptsFalse: []string{"bgm"}},
	{op: "start-end2video", model: "svc2.0", base: `{"model":"svc2.0","images":[` + img + `,` + img + `]}`, duration: &bound{4, 4, 8}, resDef: "360p", res: []string{"720p", "1080p"}, imgMin: 2, imgMax: 2, promptMax: 5000,
		unwanted: map[string]any{"audio": true}},
	{op: "reference2video", model: "svc2.0", base: r2vBase("svc2.0"), duration: &bound{4, 4, 8}, resDef: "360p", res: []string{"720p", "1080p"}, ratioDef: "16:9", ratios: r2vRatios, imgMin: 1, imgMax: 3, promptMax: 5000,
		unwanted: map[string]any{"subjects": []any{map[string]any{"name": "a"}}, "auto_subjects": true, "audio": true}},

	// The service in 2026 (service notes): its table of five operations.
	{op: "extend", model: "svcq2-pro", base: `{"model":"svcq2-pro","video_creation_id":"3141592653589793"}`, duration: &bound{5, 1, 7}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 0, imgMax: 1, promptMax: 2000},
	{op: "extend", model: "svcq2-turbo", base: `{"model":"svcq2-turbo","video_url":"https://example.com/v.mp4"}`, duration: &bound{5, 1, 7}, resDef: "720p", res: []string{"540p", "720p", "1080p"}, imgMin: 0, imgMax: 1, promptMax: 2000,
		unwanted: map[string]any{"aspect_ratio": "16:9", "audio": true}},
	{op: "multiframe", model: "svcq2-pro", base: multiframeBase("svcq2-pro", 2), resDef: "720p", res: []string{"540p", "720p", "1080p"},
		unwanted: map[string]any{"prompt": "a cat", "duration": 5, "images": []any{"https://example.com/a.png"}}},
	{op: "multiframe", model: "svcq2-turbo", base: multiframeBase("svcq2-turbo", 9), resDef: "720p", res: []string{"540p", "720p", "1080p"}},
	{op: "upscale-new", base: `{"video_creation_id":"3141592653589793","upscale_resolution":"4K"}`, unwanted: map[string]any{"resolution": "4K", "model": "svcq2-pro"}},
	{op: "text2audio", model: "audio1.0", base: `{"model":"audio1.0","prompt":"rain on a tin roof"}`, promptMax: 1500, unwanted: map[string]any{"timing_prompts": []any{map[string]any{"from": 0, "to": 1, "prompt": "door"}}}},
	{op: "template2video", base: `{"template":"subject_3","images":[` + img + `]}`, ratios: []string{"16:9", "9:16", "1:1"}, imgMin: 1, imgMax: -1},
}

// multiframeBase is a valid multiframe request with n key frames.
func multiframeBase(model string, n int) string {
	frames := make([]string, n)
	for i := range frames {
		frames[i] = fmt.Sprintf(`{"key_image":"https://example.com/k%d.png","prompt":"step %d","duration":%d}`, i, i, 2+i%6)
	}
	return `{"model":"` + model + `","start_image":` + img + `,"image_settings":[` + strings.Join(frames, ",") + `]}`
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

func with(t testing.TB, base string, kv ...any) map[string]any {
	m := decode(t, base)
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(m, kv[i].(string))
		} else {
			m[kv[i].(string)] = kv[i+1]
		}
	}
	return m
}

func images(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://example.com/%d.png", i)
	}
	return out
}

func expectValid(t *testing.T, op string, m map[string]any) {
	t.Helper()
	if errs := Validate(api.Operation(op), m); errs != nil {
		t.Errorf("want valid, got %v\nrequest: %v", errs, short(m))
	}
}

func expectInvalid(t *testing.T, op string, m map[string]any, field string) {
	t.Helper()
	errs := Validate(api.Operation(op), m)
	if errs == nil {
		t.Errorf("want an error naming %s, got none\nrequest: %v", field, short(m))
		return
	}
	for _, e := range errs {
		if e.Field == field && strings.Contains(e.Message, field) {
			return
		}
	}
	t.Errorf("want an error naming %s, got %v", field, errs)
}

func short(m map[string]any) string {
	b, _ := json.Marshal(m)
	return textutil.Clip(string(b), 300)
}

func TestModelTables(t *testing.T) {
	for _, row := range modelRows {
		name := row.op + "/" + row.model
		t.Run(name, func(t *testing.T) {
			expectValid(t, row.op, decode(t, row.base))
			if row.duration != nil {
				d := row.duration
				expectValid(t, row.op, with(t, row.base, "duration", json.Number(fmt.Sprint(d.min))))
				expectValid(t, row.op, with(t, row.base, "duration", json.Number(fmt.Sprint(d.max))))
				expectInvalid(t, row.op, with(t, row.base, "duration", json.Number(fmt.Sprint(d.min-1))), "duration")
				expectInvalid(t, row.op, with(t, row.base, "duration", json.Number(fmt.Sprint(d.max+1))), "duration")
				expectInvalid(t, row.op, with(t, row.base, "duration", json.Number("5.5")), "duration")
				expectInvalid(t, row.op, with(t, row.base, "duration", "5"), "duration")
				if got := WithDefaults(api.Operation(row.op), decode(t, row.base))["duration"]; fmt.Sprint(got) != fmt.Sprint(d.def) {
					t.Errorf("default duration = %v, want %d", got, d.def)
				}
			}
			if row.res != nil {
				for _, r := range allRes {
					m := with(t, row.base, "resolution", r)
					if contains(row.res, r) {
						expectValid(t, row.op, m)
					} else {
						expectInvalid(t, row.op, m, "resolution")
					}
				}
				if got := WithDefaults(api.Operation(row.op), decode(t, row.base))["resolution"]; got != row.resDef {
					t.Errorf("default resolution = %v, want %s", got, row.resDef)
				}
			}
			if row.ratios != nil {
				for _, r := range append(allRatios, "7:3") {
					m := with(t, row.base, "aspect_ratio", r)
					if contains(row.ratios, r) || (row.anyRatio && r != "auto") {
						expectValid(t, row.op, m)
					} else {
						expectInvalid(t, row.op, m, "aspect_ratio")
					}
				}
				if row.anyRatio {
					expectInvalid(t, row.op, with(t, row.base, "aspect_ratio", "5:1"), "aspect_ratio")
				}
				want := any(nil)
				if row.ratioDef != "" {
					want = row.ratioDef
				}
				if got := WithDefaults(api.Operation(row.op), decode(t, row.base))["aspect_ratio"]; got != want {
					t.Errorf("default aspect_ratio = %v, want %v", got, want)
				}
			}
			if row.imgMax != 0 {
				if row.imgMin > 0 {
					expectInvalid(t, row.op, with(t, row.base, "images", images(row.imgMin-1)), "images")
				}
				expectValid(t, row.op, with(t, row.base, "images", images(max(row.imgMin, 1))))
				if row.imgMax > 0 {
					expectValid(t, row.op, with(t, row.base, "images", images(row.imgMax)))
					expectInvalid(t, row.op, with(t, row.base, "images", images(row.imgMax+1)), "images")
				} else {
					expectValid(t, row.op, with(t, row.base, "images", images(20)))
				}
			}
			if row.promptMax > 0 {
				expectValid(t, row.op, with(t, row.base, "prompt", strings.Repeat("é", row.promptMax)))
				expectInvalid(t, row.op, with(t, row.base, "prompt", strings.Repeat("é", row.promptMax+1)), "prompt")
			}
			if row.audioDef != nil {
				if got := WithDefaults(api.Operation(row.op), decode(t, row.base))["audio"]; got != *row.audioDef {
					t.Errorf("default audio = %v, want %v", got, *row.audioDef)
				}
			}
			for field, v := range row.unwanted {
				expectInvalid(t, row.op, with(t, row.base, field, v), field)
			}
			for _, field := range row.acceptsFalse {
				expectValid(t, row.op, with(t, row.base, field, false))
			}
		})
	}
}

// Every model of every operation in the spec appears above; the service
// layer's models follow the spec's.
func TestModelRowsCoverEveryModel(t *testing.T) {
	want := map[string][]string{
		"reference2video": {"svcq1", "svcq2", "svcq2-pro", "svcq3", "svcq3-turbo", "svcq3-drama", "svcq3-mix", "svcq3-ad", "svcq4-preview", "svc2.0"},
		"img2video":       {"svcq3-pro-fast", "svcq3-turbo", "svcq3-pro", "svcq1", "svcq1-classic", "svcq2-pro", "svcq2-turbo", "svcq2-pro-fast", "svc2.0"},
		"text2video":      {"svcq3-pro", "svcq3-turbo", "svcq1", "svcq2"},
		"start-end2video": {"svcq2-turbo", "svcq2-pro", "svcq2-pro-fast", "svcq3-pro", "svcq3-turbo", "svcq3-pro-fast", "svcq1", "svcq1-classic", "svc2.0"},
		"reference2image": {"svcq2", "svcq1"},
		"timing2audio":    {"audio1.0"},
		"extend":          {"svcq2-pro", "svcq2-turbo"},
		"multiframe":      {"svcq2-pro", "svcq2-turbo"},
		"text2audio":      {"audio1.0"},
	}
	for op, models := range want {
		if got := Models(api.Operation(op)); strings.Join(got, ",") != strings.Join(models, ",") {
			t.Errorf("Models(%s) = %v, want %v", op, got, models)
		}
		for _, m := range models {
			found := false
			for _, r := range modelRows {
				found = found || (r.op == op && r.model == m)
			}
			if !found {
				t.Errorf("no table row for %s/%s", op, m)
			}
		}
	}
	if n := len(api.Operations()); n != 19 {
		t.Errorf("%d operations, want 19: the spec's 14 and the five of 2026", n)
	}
}
