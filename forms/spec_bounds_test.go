package forms

import (
	"testing"

	"clapper/api"
)

// A representative few of the spec's bounds, typed into the form by keys:
// at the bound the form is ready to send, one step past it the field is
// flagged. (Every bound is checked through catalog.Validate and the sandbox
// in api/sandbox/spec_bounds_test.go; this proves the form asks the same.)
func TestFormFlagsTheSpecBoundsAsTyped(t *testing.T) {
	for _, c := range []struct {
		spec     string
		op       api.Operation
		model    string
		fill     map[string]string // typed before the field under test
		field    string
		ok, past string
	}{
		// text2video: "svcq3 family: default 5, range 1-16".
		{"text2video duration 1-16", api.OpText2Video, "svcq3-pro", map[string]string{"prompt": "a fox"}, "duration", "16", "17"},
		// "multi-scene duration 1-180 seconds".
		{"multi-scene duration 1-180", api.OpGeneralOneClick, "", map[string]string{"images": "https://example.com/a.png"}, "duration", "180", "181"},
		// timing2audio: "duration 2-10 seconds".
		{"timing2audio duration 2-10", api.OpTiming2Audio, "", nil, "duration", "2", "1.9"},
		// audio-tts: "voice_setting_speed ... range [0.5, 2]".
		{"speech speed 0.5-2", api.OpAudioTTS, "", map[string]string{"text": "Hello there.", "voice_setting_voice_id": "narrator_01"}, "voice_setting_speed", "2", "2.01"},
		// audio-tts: "voice_setting_pitch ... range [-12, 12]".
		{"speech pitch -12..12", api.OpAudioTTS, "", map[string]string{"text": "Hello there.", "voice_setting_voice_id": "narrator_01"}, "voice_setting_pitch", "-12", "-13"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			for _, v := range []struct {
				typed string
				ok    bool
			}{{c.ok, true}, {c.past, false}} {
				f := newTestForm(t, c.op, c.model)
				for name, value := range c.fill {
					focus(t, f, name)
					typeText(f, value)
					press(f, "enter")
				}
				focus(t, f, c.field)
				press(f, "ctrl+u")
				typeText(f, v.typed)
				syncCheck(f)
				flagged := len(f.Check().Errors[c.field]) > 0
				if flagged == v.ok {
					t.Errorf("%s = %s: flagged %v (errors %v, broken %v)", c.field, v.typed, flagged, f.Check().Errors, f.Check().Broken)
				}
			}
		})
	}
}
