package forms

import "strings"

// fieldWords say in people's words what a wire name holds, where the name
// alone does not: the form shows them beside the name.
var fieldWords = map[string]string{
	"voice_setting_voice_id":  "Voice",
	"voice_setting_speed":     "Speed",
	"voice_setting_volume":    "Volume",
	"voice_setting_pitch":     "Pitch",
	"voice_setting_emotion":   "Emotion",
	"pronunciation_dict_tone": "Pronunciations",
	"voice_id":                "Voice",
	"audio_url":               "Source audio",
	"prompt_audio_url":        "Preview audio",
	"prompt_text":             "Preview text",
	"text":                    "Words to speak",
	"lip_ref_urls":            "Singers' faces",
	"premium_mv_mode":         "Mode",
	"timing_prompts":          "Timed sounds",
	"is_rec":                  "Auto prompt",
	"bgm":                     "Background music",
	"movement_amplitude":      "Camera motion",
	"aspect_ratio":            "Frame shape",
	"off_peak":                "Off-peak",
	"wm_url":                  "Mark image",
	"wm_position":             "Mark corner",
	"meta_data":               "Metadata",
	"callback_url":            "Callback",
	"auto_subjects":           "Auto subjects",
	"video_url":               "Video",
	"story":                   "Template story",
}

// peopleWords puts a field's people's words before its help.
func peopleWords(name, help string) string {
	if w, ok := fieldWords[name]; ok && !strings.HasPrefix(strings.ToLower(help), strings.ToLower(w)) {
		return w + " · " + help
	}
	return help
}
