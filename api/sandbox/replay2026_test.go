package sandbox

import (
	"net/http"
	"strings"
	"testing"
)

// Bodies in the shapes public clients send for the service of 2026 (the
// official MCP server, ComfyUI's nodes, SDKs and the official examples):
// the five newer operations, svc2.0, style, bgm, audio_type and the
// bounds sources disagree on. Each is accepted; the ones the service
// itself refuses stay refused, each for its own reason.
func TestReplayOf2026ClientBodies(t *testing.T) {
	h := newHarness(t, Config{})
	i := `"` + img + `"`
	accepted := []struct{ name, path, body, ignored string }{
		{"MCP text2video svcq1 anime", "/ent/v2/text2video", `{"model":"svcq1","style":"anime","prompt":"a fox","duration":5,"seed":0,"aspect_ratio":"16:9","resolution":"1080p","movement_amplitude":"auto","bgm":false}`, ""},
		{"MCP img2video svc2.0", "/ent/v2/img2video", `{"model":"svc2.0","images":[` + i + `],"prompt":"","duration":4,"seed":0,"resolution":"360p","movement_amplitude":"auto","bgm":false}`, ""},
		{"MCP reference2video svc2.0", "/ent/v2/reference2video", `{"model":"svc2.0","images":[` + i + `,` + i + `,` + i + `],"prompt":"friends","duration":4,"seed":0,"aspect_ratio":"16:9","resolution":"720p","movement_amplitude":"auto","bgm":false}`, ""},
		{"MCP start-end2video svc2.0 8 s", "/ent/v2/start-end2video", `{"model":"svc2.0","images":[` + i + `,` + i + `],"prompt":"","duration":8,"seed":0,"resolution":"720p","movement_amplitude":"auto","bgm":false}`, ""},
		{"MCP template2video", "/ent/v2/template2video", `{"template":"hugging","images":[` + i + `,` + i + `],"prompt":"they hug","seed":0,"aspect_ratio":"","bgm":false}`, ""},
		// style is "effective for svcq1 only": elsewhere it is ignored, and said so.
		{"text2video svcq2 bgm", "/ent/v2/text2video", `{"model":"svcq2","prompt":"waves","style":"general","bgm":true}`, "style"},
		{"text2video svcq3-pro style", "/ent/v2/text2video", `{"model":"svcq3-pro","prompt":"waves","style":"anime","bgm":true}`, "bgm,style"},
		{"img2video svcq2-turbo 540p bgm", "/ent/v2/img2video", `{"model":"svcq2-turbo","images":[` + i + `],"resolution":"540p","bgm":true}`, ""},
		{"ComfyUI img2video svcq3-pro 2K audio_type", "/ent/v2/img2video", `{"model":"svcq3-pro","images":[` + i + `],"prompt":"she speaks","resolution":"2K","audio":true,"audio_type":"speech_only","duration":5}`, ""},
		{"reference2video svcq3-mix 16 s", "/ent/v2/reference2video", `{"model":"svcq3-mix","images":[` + i + `],"prompt":"a dance","duration":16,"audio_type":"sound_effect_only"}`, ""},
		{"start-end2video svcq2-turbo 1 s", "/ent/v2/start-end2video", `{"model":"svcq2-turbo","images":[` + i + `,` + i + `],"duration":1}`, ""},
		{"ComfyUI extend", "/ent/v2/extend", `{"model":"svcq2-turbo","video_url":"https://example.com/v.mp4","prompt":"it goes on","duration":5,"resolution":"720p"}`, ""},
		{"extend toward an end frame", "/ent/v2/extend", `{"model":"svcq2-pro","video_creation_id":"907126354123456789","images":[` + i + `],"duration":7,"resolution":"1080p","seed":42}`, ""},
		{"ComfyUI multiframe", "/ent/v2/multiframe", `{"model":"svcq2-pro","start_image":` + i + `,"image_settings":[{"key_image":` + i + `,"prompt":"turn","duration":5},{"key_image":` + i + `,"duration":2},{"key_image":` + i + `}],"resolution":"720p"}`, ""},
		{"upscale-new to 4K", "/ent/v2/upscale-new", `{"video_url":"https://example.com/v.mp4","upscale_resolution":"4K"}`, ""},
		{"official text2audio example", "/ent/v2/text2audio", `{"model":"audio1.0","prompt":"a gentle rain","duration":10,"seed":0}`, ""},
		{"template2video exotic_princess", "/ent/v2/template2video", `{"template":"exotic_princess","images":[` + i + `],"prompt":"a walk","area":"italy","aspect_ratio":"9:16"}`, ""},
	}
	for _, c := range accepted {
		status, hdr, raw := h.call(http.MethodPost, c.path, c.body, nil)
		if status != http.StatusOK || hdr.Get(IgnoredFieldsHeader) != c.ignored || hdr.Get(CoercedFieldsHeader) != "" {
			t.Errorf("%s: HTTP %d, ignored %q (want %q), coerced %q: %s", c.name, status, hdr.Get(IgnoredFieldsHeader), c.ignored, hdr.Get(CoercedFieldsHeader), raw)
		}
	}
	// Numbers as strings where the official examples send them: read as
	// the numbers, named as coerced, echoed as numbers.
	coerced := []struct{ name, path, body, coerced string }{
		{"official text2audio example", "/ent/v2/text2audio", `{"model":"audio1.0","prompt":"a gentle rain","duration":"10","seed":"0"}`, "duration,seed"},
		{"speech page mirror, settings as strings", "/ent/v2/audio-tts", `{"text":"Hello there.","voice_setting_voice_id":"female-shaonv","voice_setting_speed":"1.5","voice_setting_volume":"1","voice_setting_pitch":"0"}`,
			"voice_setting_pitch,voice_setting_speed,voice_setting_volume"},
	}
	for _, c := range coerced {
		status, hdr, raw := h.call(http.MethodPost, c.path, c.body, nil)
		if status != http.StatusOK || hdr.Get(CoercedFieldsHeader) != c.coerced || hdr.Get(IgnoredFieldsHeader) != "" {
			t.Errorf("%s: HTTP %d, coerced %q (want %q): %s", c.name, status, hdr.Get(CoercedFieldsHeader), c.coerced, raw)
		}
		if c.path == "/ent/v2/text2audio" && !strings.Contains(string(raw), `"duration":10,`) {
			t.Errorf("%s: the echo does not carry the number: %s", c.name, raw)
		}
	}
	refused := []struct{ name, path, body, field, says string }{
		{"svc1.5 is retired", "/ent/v2/text2video", `{"model":"svc1.5","prompt":"a fox","duration":4}`, "model", "svc1.5 is retired"},
		{"svc2.0 at 5 s", "/ent/v2/img2video", `{"model":"svc2.0","images":[` + i + `],"duration":5}`, "duration", "svc2.0 accepts 4 or 8 seconds"},
		{"extend by 8 s", "/ent/v2/extend", `{"model":"svcq2-pro","video_url":"https://example.com/v.mp4","duration":8}`, "duration", "1 to 7 seconds"},
		{"one key frame", "/ent/v2/multiframe", `{"model":"svcq2-pro","start_image":` + i + `,"image_settings":[{"key_image":` + i + `}]}`, "image_settings", "2 to 9 key frames"},
		{"upscale with no video", "/ent/v2/upscale-new", `{"upscale_resolution":"4K"}`, "video_creation_id", "video_url"},
		{"text2audio of 11 s", "/ent/v2/text2audio", `{"model":"audio1.0","prompt":"rain","duration":11}`, "duration", "2 to 10 seconds"},
		{"text2audio of \"11\" s", "/ent/v2/text2audio", `{"model":"audio1.0","prompt":"rain","duration":"11"}`, "duration", "2 to 10 seconds"},
		{"a string where no example sends one", "/ent/v2/text2video", `{"model":"svcq3-pro","prompt":"rain","duration":"5"}`, "duration", `must be a whole number, got "5"`},
		{"a string that is no number", "/ent/v2/text2audio", `{"model":"audio1.0","prompt":"rain","duration":"ten"}`, "duration", `must be a number, got "ten"`},
	}
	for _, c := range refused {
		status, hdr, raw := h.call(http.MethodPost, c.path, c.body, nil)
		e := rejection(t, status, hdr, raw, http.StatusBadRequest, "", c.field)
		if !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: %s, want %q", c.name, e.Message, c.says)
		}
	}
}
