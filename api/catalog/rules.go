package catalog

import (
	"fmt"
	"regexp"
	"strings"

	"clapper/api"
	"clapper/internal/textutil"
)

// Cross-field rules. Each names the spec line it comes from.

// reference2video: "images ... yes in the images form", "subjects ... yes
// in the subjects form". Whether both may be combined is not shown; we
// refuse the mix so a request means one thing.
func imagesOrSubjects(s *Spec, b body) []FieldError {
	_, takesSubjects := s.Field("subjects")
	hasImages, hasSubjects := b.count("images") > 0, b.count("subjects") > 0
	switch {
	case !takesSubjects && !hasImages:
		return []FieldError{{"images", api.ReasonFieldLacking, fmt.Sprintf("images: required; %s needs reference images", s.Model)}}
	case takesSubjects && !hasImages && !hasSubjects:
		return []FieldError{{"images", api.ReasonFieldLacking, fmt.Sprintf("images: give images (the images form) or subjects (the subjects form); %s takes either", s.Model)}}
	case hasImages && hasSubjects:
		return []FieldError{{"subjects", api.ReasonFieldUnwanted, "subjects: send either images or subjects, not both"}}
	}
	return nil
}

// reference2video subjects: "svcq2-pro: image or text subjects at most 4,
// video subjects at most 2 (temporary video subject at most 1)".
func subjectRules(s *Spec, b body) []FieldError {
	if s.base != "svcq2-pro" {
		return nil
	}
	v, _ := b.get("subjects")
	items, _ := v.([]any)
	var plain, video, tempVideo int
	for _, it := range items {
		obj, _ := it.(map[string]any)
		if body(obj).count("videos") > 0 {
			video++
			if sid, _ := body(obj).get("server_id"); sid == nil {
				tempVideo++
			}
		} else {
			plain++
		}
	}
	var errs []FieldError
	if plain > 4 {
		errs = append(errs, FieldError{"subjects", api.ReasonFieldItemCountOutOfRange, fmt.Sprintf("subjects: svcq2-pro takes at most 4 image or text subjects, got %d", plain)})
	}
	if video > 2 {
		errs = append(errs, FieldError{"subjects", api.ReasonFieldItemCountOutOfRange, fmt.Sprintf("subjects: svcq2-pro takes at most 2 video subjects, got %d", video)})
	} else if tempVideo > 1 {
		errs = append(errs, FieldError{"subjects", api.ReasonFieldItemCountOutOfRange, fmt.Sprintf("subjects: svcq2-pro takes at most 1 temporary video subject (without server_id), got %d", tempVideo)})
	}
	return errs
}

// reference2video prompt: "in the subjects form subjects are referenced as
// [@name]". A reference to no subject of the request would reach the model
// as a dangling name, so it is refused. svcq3-mix and svcq4-preview take no
// subjects (svcq4-preview "references images by position", in a syntax not
// shown): their prompts are not read for references.
func subjectReferences(s *Spec, b body) []FieldError {
	if _, takesSubjects := s.Field("subjects"); !takesSubjects {
		return nil
	}
	v, _ := b.get("prompt")
	prompt, _ := v.(string)
	refs := subjectRef.FindAllStringSubmatch(prompt, -1)
	if len(refs) == 0 {
		return nil
	}
	sv, _ := b.get("subjects")
	items, _ := sv.([]any)
	var names []string
	for _, it := range items {
		obj, _ := it.(map[string]any)
		if n, ok := obj["name"].(string); ok && n != "" {
			names = append(names, n)
		}
	}
	var errs []FieldError
	seen := map[string]bool{}
	for _, r := range refs {
		name := r[1]
		if contains(names, name) || seen[name] {
			continue
		}
		seen[name] = true
		msg := fmt.Sprintf("prompt: [@%s] names no subject; subjects are named ", textutil.Clip(name, 40))
		if len(names) == 0 {
			msg += "in the subjects form (subjects:=[{\"name\":...}])"
		} else {
			msg += strings.Join(names, ", ")
		}
		errs = append(errs, FieldError{"prompt", api.ReasonFieldInvalid, msg})
	}
	return errs
}

var subjectRef = regexp.MustCompile(`\[@([^\]]*)\]`)

// reference2video model table: "svcq2-pro | 1-7 without videos, 1-4 with videos".
func proImagesWithVideos(s *Spec, b body) []FieldError {
	if s.base != "svcq2-pro" || b.count("videos") == 0 {
		return nil
	}
	if n := b.count("images"); n > 4 {
		return []FieldError{{"images", api.ReasonFieldItemCountOutOfRange, fmt.Sprintf("images: svcq2-pro takes 1 to 4 images when videos are given, got %d", n)}}
	}
	return nil
}

// reference2video videos: "1-2 videos: one of at most 8 seconds or two of
// 5 seconds". Lengths are known only for data URIs.
func videoLengths(s *Spec, b body) []FieldError {
	v, _ := b.get("videos")
	items, _ := v.([]any)
	if len(items) != 2 {
		return nil
	}
	for i, it := range items {
		str, _ := it.(string)
		d, err := ParseDataURI(str)
		if err != nil {
			continue
		}
		if secs, ok := MP4Duration(d.Data); ok && secs > 5.05 {
			return []FieldError{{"videos", api.ReasonFieldInvalid, fmt.Sprintf("videos[%d]: is %s s long; with two videos each must be at most 5 s", i, outside(secs, 0, 5.05))}}
		}
	}
	return nil
}

// Shared optional video fields: "off_peak ... for svcq2, svcq1 and 2.0-series
// models only when audio is false" (img2video: audio true "disables off-peak").
func offPeakAudio(s *Spec, b body) []FieldError {
	if !offPeakNeedsSilence(s.Model) || !s.flag(b, "off_peak") || !s.flag(b, "audio") {
		return nil
	}
	msg := fmt.Sprintf("off_peak: %s generates off-peak only without audio; set audio to false", s.Model)
	if _, set := b.get("audio"); !set {
		msg += fmt.Sprintf(" (audio defaults to true for %s %s)", s.Model, s.Operation)
	}
	return []FieldError{{"off_peak", api.ReasonFieldInvalid, msg}}
}

// start-end2video images: "resolution of first divided by resolution of
// last within 0.8-1.25" (pixel counts; known only for data URIs).
func frameResolutionRatio(s *Spec, b body) []FieldError {
	v, _ := b.get("images")
	items, _ := v.([]any)
	if len(items) != 2 {
		return nil
	}
	var px [2]int
	for i, it := range items {
		str, _ := it.(string)
		d, err := ParseDataURI(str)
		if err != nil {
			return nil
		}
		info, err := InspectImage(d.Data)
		if err != nil {
			return nil // reported by the images field check
		}
		px[i] = info.Width * info.Height
	}
	if r := float64(px[0]) / float64(px[1]); r < 0.8 || r > 1.25 {
		return []FieldError{{"images", api.ReasonFieldInvalid, fmt.Sprintf("images: the first frame has %d pixels and the last %d, a ratio of %s; it must be within 0.8 to 1.25",
			px[0], px[1], outside(r, 0.8, 1.25))}}
	}
	return nil
}

// reference2image svcq2 aspect_ratio: "auto (same ratio as the first input image)".
func autoRatioNeedsImage(s *Spec, b body) []FieldError {
	if r, _ := b.get("aspect_ratio"); r == "auto" && b.count("images") == 0 {
		return []FieldError{{"aspect_ratio", api.ReasonFieldInvalid, "aspect_ratio: auto takes the first image's ratio; give an image or choose a ratio"}}
	}
	return nil
}

// audio-clone prompt_text: "text of the sample audio ... used together with
// prompt_audio_url": the text needs its clip (the clip alone is allowed).
func promptTextWithSample(s *Spec, b body) []FieldError {
	_, text := b.get("prompt_text")
	_, sample := b.get("prompt_audio_url")
	if text && !sample {
		return []FieldError{{"prompt_audio_url", api.ReasonFieldLacking, "prompt_audio_url: required when prompt_text is given (the text of that clip)"}}
	}
	return nil
}

// timing2audio: "from and to within [0, duration]". That from precedes to
// is not written; an event that ends before it starts cannot sound, so we
// refuse from > to. from == to stays allowed: the spec's bounds allow it.
func timingWithinDuration(s *Spec, b body) []FieldError {
	dur := 10.0
	if v, ok := b.get("duration"); ok {
		if n, ok := number(v); ok {
			dur = n
		}
	}
	v, _ := b.get("timing_prompts")
	items, _ := v.([]any)
	var errs []FieldError
	for i, it := range items {
		obj, _ := it.(map[string]any)
		fv, _ := body(obj).get("from")
		tv, _ := body(obj).get("to")
		from, okF := number(fv)
		to, okT := number(tv)
		if !okF || !okT {
			continue
		}
		p := fmt.Sprintf("timing_prompts[%d]", i)
		switch {
		case from < 0 || from > dur:
			errs = append(errs, FieldError{"timing_prompts", api.ReasonFieldInvalid, fmt.Sprintf("%s.from: must lie within 0 to %s s (the duration), got %s", p, trimFloat(dur), trimFloat(from))})
		case to < 0 || to > dur:
			errs = append(errs, FieldError{"timing_prompts", api.ReasonFieldInvalid, fmt.Sprintf("%s.to: must lie within 0 to %s s (the duration), got %s", p, trimFloat(dur), trimFloat(to))})
		case from > to:
			errs = append(errs, FieldError{"timing_prompts", api.ReasonFieldInvalid, fmt.Sprintf("%s: from (%s) must not be after to (%s)", p, trimFloat(from), trimFloat(to))})
		}
	}
	return errs
}

// mv lip_sync: "720p or 1080p recommended, 540p unsupported".
func lipSyncResolution(s *Spec, b body) []FieldError {
	if r, _ := b.get("resolution"); s.flag(b, "lip_sync") && r == "540p" {
		return []FieldError{{"resolution", api.ReasonFieldInvalid, "resolution: lip_sync does not support 540p; choose 720p or 1080p"}}
	}
	return nil
}

// mv lip_ref_url: "aspect ratio at most 2; longest side under 4096".
func lipRefShape(s *Spec, b body) []FieldError {
	v, _ := b.get("lip_ref_url")
	str, _ := v.(string)
	d, err := ParseDataURI(str)
	if err != nil {
		return nil
	}
	info, err := InspectImage(d.Data)
	if err != nil {
		return nil
	}
	long, short := max(info.Width, info.Height), min(info.Width, info.Height)
	switch {
	case long >= 4096:
		return []FieldError{{"lip_ref_url", api.ReasonFieldInvalid, fmt.Sprintf("lip_ref_url: longest side is %d px; must be under 4096", long)}}
	case float64(long) > 2*float64(short):
		return []FieldError{{"lip_ref_url", api.ReasonFieldInvalid, fmt.Sprintf("lip_ref_url: %dx%d is wider than 2:1; use a close-up", info.Width, info.Height)}}
	}
	return nil
}

// premium_mv: lip_ref_urls "yes for sing and sing_perform"; images
// "optional for sing and sing_perform; required for perform and dance".
// PremiumModeAsks says which inputs a premium_mv mode requires: the
// singers' faces (lip_ref_urls) for the sing modes, images for perform and
// dance. The form asks for them; premiumModeInputs checks them.
func PremiumModeAsks(mode string) (faces, images bool) {
	switch mode {
	case "sing", "sing_perform":
		return true, false
	case "perform", "dance":
		return false, true
	}
	return false, false
}

func premiumModeInputs(s *Spec, b body) []FieldError {
	mode, _ := b.get("premium_mv_mode")
	m, _ := mode.(string)
	faces, images := PremiumModeAsks(m)
	switch {
	case faces && b.count("lip_ref_urls") == 0:
		return []FieldError{{"lip_ref_urls", api.ReasonFieldLacking, fmt.Sprintf("lip_ref_urls: required for %s; give 1 or 2 singers' faces", m)}}
	case images && b.count("images") == 0:
		f, _ := s.Field("images")
		f.MinItems = 1 // the mode makes the optional list required
		return []FieldError{{"images", api.ReasonFieldLacking, fmt.Sprintf("images: required for %s; give %s", m, f.countText())}}
	}
	return nil
}

// ValidateEdit checks the body of a multi-scene /edit call.
func ValidateEdit(req map[string]any) Errors { return EditSpec().Validate(req) }

// ValidateCompose checks the body of a multi-scene /compose call.
func ValidateCompose(req map[string]any) Errors { return ComposeSpec().Validate(req) }

// WithDefaults returns a copy of a valid body with the spec's defaults
// applied for the model it names (what the service uses for every field
// left unset) and every value in the Go type of its kind (int64 for whole
// numbers, float64 for numbers, a list for a single media string). An
// invalid model leaves the body unchanged.
func WithDefaults(op api.Operation, req map[string]any) map[string]any {
	out := make(map[string]any, len(req)+8)
	for k, v := range req {
		out[k] = v
	}
	model, _ := req["model"].(string)
	s, err := shared(op, model)
	if err != nil {
		return out
	}
	for _, f := range s.Fields {
		v, set := body(out).get(f.Name)
		switch {
		case !set && f.Default != nil:
			out[f.Name] = f.Default
		case !set:
			delete(out, f.Name) // null, "" and [] mean unset
		default:
			out[f.Name] = asKind(f, v)
		}
	}
	return out
}

// asKind gives a valid value the Go type of its kind, so an echo built from
// it carries the spec's types: 5.0 becomes 5, a single image string a list.
func asKind(f Field, v any) any {
	switch f.Kind {
	case KindInt:
		if n, ok := number(v); ok {
			return int64(n)
		}
	case KindNumber:
		if n, ok := number(v); ok {
			return n
		}
	}
	return wireValue(f, v)
}

// FieldNames lists every field any model of the operation takes, in spec order.
func FieldNames(op api.Operation) []string {
	var out []string
	for _, m := range modelsOrNone(op) {
		s, _ := shared(op, m)
		for _, f := range s.Fields {
			if !contains(out, f.Name) {
				out = append(out, f.Name)
			}
		}
	}
	return out
}
