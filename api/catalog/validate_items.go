// The checks of fields that hold a list of items, each with fields of its
// own: a reference's subjects, timing prompts, key frames. An item's
// message names the item and its field.

package catalog

import (
	"clapper/api"
	"fmt"
	"strings"
	"unicode/utf8"
)

func (s *Spec) checkSubjects(f Field, v any) []FieldError {
	items, ok := v.([]any)
	if !ok {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, "subjects: must be a list of {name, images, videos, voice_id, server_id} objects"}}
	}
	if e := s.checkCount(f, len(items)); e != nil {
		return []FieldError{*e}
	}
	var errs []FieldError
	names := map[string]bool{}
	for i, it := range items {
		p := fmt.Sprintf("subjects[%d]", i)
		bad := func(reason, format string, args ...any) {
			errs = append(errs, FieldError{"subjects", reason, p + fmt.Sprintf(format, args...)})
		}
		obj, ok := it.(map[string]any)
		if !ok {
			bad(api.ReasonFieldInvalid, ": must be an object with a name, got %s", describe(it))
			continue
		}
		sb := body(obj)
		name, _ := sb.get("name")
		ns, ok := name.(string)
		switch {
		case name == nil || ns == "":
			bad(api.ReasonFieldLacking, ".name: required; the prompt refers to it as [@name]")
		case !ok:
			bad(api.ReasonFieldInvalid, ".name: must be a string")
		case names[ns]:
			bad(api.ReasonFieldInvalid, ".name: %q is used twice; [@%s] would be ambiguous", ns, ns)
		default:
			names[ns] = true
		}
		for k := range obj {
			switch k {
			case "name", "images", "videos", "voice_id", "server_id":
			default:
				bad(api.ReasonFieldUnwanted, ".%s: not a subject field (name, images, videos, voice_id, server_id)", k)
			}
		}
		imgF := Field{Name: p + ".images", Kind: KindMediaList, Media: MediaImage, MaxItems: 3}
		if iv, set := sb.get("images"); set {
			errs = append(errs, relabel(s.checkField(imgF, iv), "subjects")...)
		}
		if vv, set := sb.get("videos"); set {
			if s.base != "svcq2-pro" {
				bad(api.ReasonFieldUnwanted, ".videos: %s takes only image and text subjects; video subjects are for svcq2-pro", s.subject())
			} else {
				vidF := Field{Name: p + ".videos", Kind: KindMediaList, Media: MediaVideo, MaxItems: 1, MaxDecoded: maxVideoBytes, MaxSeconds: 5}
				errs = append(errs, relabel(s.checkField(vidF, vv), "subjects")...)
			}
		}
		for _, k := range []string{"voice_id", "server_id"} {
			if x, set := sb.get(k); set {
				if str, ok := x.(string); !ok {
					bad(api.ReasonFieldInvalid, ".%s: must be a string", k)
				} else if k == "voice_id" {
					if err := checkVoiceRef(str); err != nil {
						bad(api.ReasonFieldInvalid, ".voice_id: %v", err)
					}
				}
			}
		}
	}
	return errs
}

func relabel(errs []FieldError, field string) []FieldError {
	for i := range errs {
		errs[i].Field = field
	}
	return errs
}

func (s *Spec) checkTimingPrompts(f Field, v any) []FieldError {
	items, ok := v.([]any)
	if !ok {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, "timing_prompts: must be a list of {from, to, prompt} objects"}}
	}
	if e := s.checkCount(f, len(items)); e != nil {
		return []FieldError{*e}
	}
	var errs []FieldError
	for i, it := range items {
		p := fmt.Sprintf("timing_prompts[%d]", i)
		bad := func(reason, format string, args ...any) {
			errs = append(errs, FieldError{"timing_prompts", reason, p + fmt.Sprintf(format, args...)})
		}
		obj, ok := it.(map[string]any)
		if !ok {
			bad(api.ReasonFieldInvalid, ": must be an object {from, to, prompt}, got %s", describe(it))
			continue
		}
		for _, k := range []string{"from", "to"} {
			x, set := body(obj).get(k)
			if !set {
				bad(api.ReasonFieldLacking, ".%s: required (seconds)", k)
			} else if _, ok := number(x); !ok {
				bad(api.ReasonFieldInvalid, ".%s: must be a number of seconds, got %s", k, describe(x))
			}
		}
		pr, set := body(obj).get("prompt")
		ps, isStr := pr.(string)
		switch {
		case !set || (isStr && strings.TrimSpace(ps) == ""):
			bad(api.ReasonFieldLacking, ".prompt: required (the sound to make)")
		case !isStr:
			bad(api.ReasonFieldInvalid, ".prompt: must be a string")
		case utf8.RuneCountInString(ps) > 1500:
			bad(api.ReasonFieldInvalid, ".prompt: at most 1500 characters, got %d", utf8.RuneCountInString(ps))
		}
		for k := range obj {
			if k != "from" && k != "to" && k != "prompt" {
				bad(api.ReasonFieldUnwanted, ".%s: not a timing prompt field (from, to, prompt)", k)
			}
		}
	}
	return errs
}

// checkKeyFrames: multiframe's image_settings, "2 to 9 key frames in time
// order, each {key_image (required), prompt (optional), duration 2-7}".
func (s *Spec) checkKeyFrames(f Field, v any) []FieldError {
	items, ok := v.([]any)
	if !ok {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, f.Name + ": must be a list of {key_image, prompt, duration} objects"}}
	}
	// The count and then every frame: a first frame's own faults (a duration
	// of 9) are shown while it is still alone, not only once a second exists.
	var errs []FieldError
	if e := s.checkCount(f, len(items)); e != nil {
		errs = append(errs, *e)
	}
	imgF := Field{Name: "key_image", Kind: KindMedia, Media: MediaImage}
	durF := Field{Name: "duration", Kind: KindInt, Unit: "seconds", Range: rng(KeyFrameMinSeconds, KeyFrameMaxSeconds)}
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", f.Name, i)
		bad := func(reason, format string, args ...any) {
			errs = append(errs, FieldError{f.Name, reason, p + fmt.Sprintf(format, args...)})
		}
		obj, ok := it.(map[string]any)
		if !ok {
			bad(api.ReasonFieldInvalid, ": must be an object {key_image, prompt, duration}, got %s", describe(it))
			continue
		}
		kf := body(obj)
		switch img, set := kf.get("key_image"); {
		case !set:
			bad(api.ReasonFieldLacking, ".key_image: required (the image the video reaches at this key frame)")
		default:
			if str, ok := img.(string); !ok {
				bad(api.ReasonFieldInvalid, ".key_image: must be a string, got %s", describe(img))
			} else {
				errs = append(errs, relabel(checkMedia(imgF, p+".key_image", str), f.Name)...)
			}
		}
		if pr, set := kf.get("prompt"); set {
			if _, ok := pr.(string); !ok {
				bad(api.ReasonFieldInvalid, ".prompt: must be a string, got %s", describe(pr))
			}
		}
		if d, set := kf.get("duration"); set {
			for _, e := range s.checkField(durF, d) {
				bad(e.Reason, ".%s", e.Message)
			}
		}
		for k := range obj {
			switch k {
			case "key_image", "prompt", "duration":
			default:
				bad(api.ReasonFieldUnwanted, ".%s: not a key frame field (key_image, prompt, duration)", k)
			}
		}
	}
	return errs
}
