package catalog

import (
	"clapper/api"
)

// Inert names the values of a request the service takes but ignores for
// its model and settings, with why: the form marks them so nobody counts on
// them; sending them is allowed. The cases are the spec's "no effect" and
// "ignored" notes:
//   - a prompt when is_rec is true (img2video, svcq1 family: the service
//     writes its own);
//   - bgm for the svcq3 family (reference2video, start-end2video), and for
//     svcq2 at a duration of 9 or 10 (reference2video);
//   - movement_amplitude for the svcq2 and svcq3 models (start-end2video);
//   - voice_id when audio is off (img2video, svcq1 family).
func Inert(op api.Operation, model string, body map[string]any) map[string]string {
	out := map[string]string{}
	set := func(name string) bool { v, ok := body[name]; return ok && v != nil && v != "" }
	isTrue := func(name string) bool { b, _ := body[name].(bool); return b }
	switch op {
	case api.OpImg2Video:
		if !isQ1Family(model) {
			break
		}
		if set("prompt") && isTrue("is_rec") {
			out["prompt"] = "ignored: with is_rec on, the service writes the prompt"
		}
		if set("voice_id") && !audioOn(op, model, body) {
			out["voice_id"] = "no effect: audio is off"
		}
	case api.OpReference2Video, api.OpStartEnd2Video:
		if isTrue("bgm") {
			switch {
			case isQ3Family(model):
				out["bgm"] = "no effect for the svcq3 family"
			case op == api.OpReference2Video && model == "svcq2" && (FormatValue(body["duration"]) == "9" || FormatValue(body["duration"]) == "10"):
				out["bgm"] = "no effect for svcq2 at 9 or 10 seconds"
			}
		}
		if op == api.OpStartEnd2Video && set("movement_amplitude") && (isQ2Family(model) || isQ3Family(model)) {
			out["movement_amplitude"] = "no effect for " + model
		}
	}
	return out
}

// audioOn is the audio flag in force: the value, else the model's default.
func audioOn(op api.Operation, model string, body map[string]any) bool {
	if b, ok := body["audio"].(bool); ok {
		return b
	}
	s, err := shared(op, model)
	if err != nil {
		return false
	}
	if f, ok := s.Field("audio"); ok {
		b, _ := f.Default.(bool)
		return b
	}
	return false
}
