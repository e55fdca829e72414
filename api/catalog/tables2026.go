package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"clapper/api"
	"clapper/internal/textutil"
)

// The five operations the service documents beyond the spec's tables
// (service notes, "The service in 2026"): extend, multiframe, upscale-new,
// text2audio and template2video. They belong to the service layer: their
// fields carry LayerService and cite the notes.

// Where the rules of this file were read.
const (
	// citeOps: the notes' table of the five operations, from the service's
	// official pages and the clients that call them.
	citeOps = "notes, The service in 2026: official pages"
	// citeBoth: upscale-new says the creation id wins when both are sent;
	// extend does not say, and is read the same way (the lenient side).
	citeBoth = "notes, The service in 2026: upscale-new's page (creation id wins); extend read alike"
	// citeMCP: what the official MCP server sends (template2video's
	// aspect ratios, area and beast values).
	citeMCP = "notes, The service in 2026: official pages and the official MCP server"
	// citeBeyond: the notes' earlier section, the service's documentation
	// of late 2026 beyond the spec's tables.
	citeBeyond = "notes, Beyond the spec's tables"
	// citeStrings: numbers the service's examples send as JSON strings.
	citeStrings = "notes, The service in 2026: numbers as strings, as the official examples send them"
	// citeOpen: the template list is long and changes.
	citeOpen = "notes, The service in 2026: the official template list changes; other names are sent as written"
)

// maxUpscaleSeconds: upscale-new's source is "at most 300 s and under 60 fps".
const maxUpscaleSeconds = 300

// UpscaleResolutions are upscale-new's targets, lowest first.
var UpscaleResolutions = []string{"1080p", "2K", "4K", "8K"}

// Template is one template2video template as the form's gallery shows it.
// The notes name these and say what only some of them take; the
// descriptions are clapper's words from the names, for a user choosing one:
// the service's result decides.
type Template struct {
	Name string
	// Description says in one line what the template makes.
	Description string
	// Photos says how many photos it wants, in words ("1 or 2 photos").
	Photos string
	// PromptOptional: the template makes its video without a prompt.
	PromptOptional bool
	// Field is the one field only this template takes ("area", "beast"), or "".
	Field string
}

var templates = []Template{
	{Name: "hugging", Description: "the people in your photos hug", Photos: "1 or 2 photos"},
	{Name: "kissing", Description: "the people in your photos kiss", Photos: "1 or 2 photos"},
	{Name: "subject_3", Description: "your subject dances the Subject 3 dance", Photos: "1 photo", PromptOptional: true},
	{Name: "pubg_winner_hit", Description: "your subject in a battle-royale victory shot", Photos: "1 photo", PromptOptional: true},
	{Name: "exotic_princess", Description: "your subject as a princess of a chosen land (area)", Photos: "1 photo", Field: "area"},
	{Name: "beast_companion", Description: "your subject beside a chosen beast (beast)", Photos: "1 photo", Field: "beast"},
}

// Templates lists the known templates, in the notes' order.
func Templates() []Template { return slices.Clone(templates) }

// TemplateNamed finds a known template.
func TemplateNamed(name string) (Template, bool) {
	i := slices.IndexFunc(templates, func(t Template) bool { return t.Name == name })
	if i < 0 {
		return Template{}, false
	}
	return templates[i], true
}

// Needs is what the template asks of a user, in a few words: "1 photo, a
// prompt (optional), area".
func (t Template) Needs() string {
	parts := []string{t.Photos, "a prompt"}
	if t.PromptOptional {
		parts[1] = "a prompt (optional)"
	}
	if t.Field != "" {
		parts = append(parts, t.Field)
	}
	return strings.Join(parts, ", ")
}

var (
	areas   = []string{"auto", "denmark", "uk", "africa", "china", "mexico", "switzerland", "russia", "italy", "korea", "thailand", "india", "japan"}
	beasts  = []string{"auto", "bear", "tiger", "elk", "snake", "lion", "wolf"}
	ratios3 = []string{"16:9", "9:16", "1:1"}
)

func templateNames() []string {
	out := make([]string, len(templates))
	for i, t := range templates {
		out[i] = t.Name
	}
	return out
}

func templateHelp() map[string]string {
	out := make(map[string]string, len(templates))
	for _, t := range templates {
		out[t.Name] = t.Description + " (" + t.Needs() + ")"
	}
	return out
}

// sourceVideoFields are extend's and upscale-new's two ways to name the
// video: a finished task's creation, or a URL the service fetches.
func sourceVideoFields(minSeconds, maxSeconds float64, what string) []Field {
	return []Field{
		{Name: "video_creation_id", Kind: KindText, MaxChars: 64, Cite: citeBoth,
			Help: "creation id of a finished task's video " + what + " (or video_url; the id wins when both are given)"},
		{Name: "video_url", Kind: KindURL, Media: MediaVideo, MinSeconds: minSeconds, MaxSeconds: maxSeconds,
			Help: "URL of the video " + what + " (or video_creation_id)"},
	}
}

// POST /ent/v2/extend.
func buildExtend(s *Spec) {
	src := sourceVideoFields(4, 60, "to extend")
	dur := durationField(5, 1, 7)
	dur.Help = "seconds added to the video"
	s.Fields = []Field{modelField(operationModels[s.Operation])}
	s.Fields = append(s.Fields, src...)
	s.Fields = append(s.Fields,
		imagesField(0, 1, "an end frame the video is extended toward"),
		promptField(2000, false),
		dur,
		enumField("resolution", "720p", res3, "output resolution"),
		seedField(), payloadField(), callbackField())
	s.rules = []rule{sourceVideo}
}

// POST /ent/v2/multiframe.
func buildMultiframe(s *Spec) {
	s.Fields = []Field{
		modelField(operationModels[s.Operation]),
		{Name: "start_image", Kind: KindMedia, Media: MediaImage, Required: true, Help: "the first frame"},
		{Name: "image_settings", Kind: KindKeyFrames, Required: true, MinItems: 2, MaxItems: 9,
			Help: "key frames in time order, each {key_image, prompt (optional), duration 2-7 s}"},
		enumField("resolution", "720p", res3, "output resolution"),
		boolField("watermark", false, "add a fixed AI-generated watermark"),
		{Name: "wm_position", Kind: KindInt, Default: 3, Range: rng(1, 4), Help: wmHelp},
		{Name: "wm_url", Kind: KindURL, Help: "image URL of a custom watermark"},
		payloadField(), callbackField(),
	}
}

// A multiframe key frame lasts 2 to 7 s. The notes give no default: one
// sent without a duration is taken as KeyFrameDefault, the service's usual
// 5 s, where a length is needed (the sandbox's price and result).
const (
	KeyFrameMinSeconds = 2
	KeyFrameMaxSeconds = 7
	KeyFrameDefault    = 5
)

// POST /ent/v2/upscale-new.
func buildUpscaleNew(s *Spec) {
	s.Fields = sourceVideoFields(0, maxUpscaleSeconds, "to upscale, under 60 fps")
	s.Fields = append(s.Fields,
		Field{Name: "upscale_resolution", Kind: KindEnum, Required: true, Options: UpscaleResolutions,
			Help: "target resolution; it must be above the source's"},
		payloadField(), callbackField())
	s.rules = []rule{sourceVideo}
}

// POST /ent/v2/text2audio.
func buildText2Audio(s *Spec) {
	s.Fields = []Field{
		modelField(operationModels[s.Operation]),
		{Name: "prompt", Kind: KindText, Required: true, MaxChars: 1500, Help: "the sound to make"},
		{Name: "duration", Kind: KindNumber, Default: 10.0, Range: rng(2, 10), Unit: "seconds", Help: "length of the audio",
			NumericString: true, Cite: citeStrings},
		numericString(seedField()), payloadField(), callbackField(),
	}
}

// numericString marks a field the official example sends as a string
// (text2audio's "seed": "0").
func numericString(f Field) Field {
	f.NumericString, f.Cite = true, citeStrings
	return f
}

// POST /ent/v2/template2video.
func buildTemplate2Video(s *Spec) {
	s.Fields = []Field{
		{Name: "template", Kind: KindEnum, Required: true, Options: templateNames(), OptionHelp: templateHelp(), OpenChoice: true, Cite: citeOpen,
			Help: "the template; each takes its own photos"},
		imagesField(1, 0, "the template's photos, usually 1 or 2"),
		{Name: "prompt", Kind: KindText, Help: "what happens; optional for some templates (subject_3, pubg_winner_hit)"},
		seedField(),
		{Name: "aspect_ratio", Kind: KindEnum, Options: ratios3, Cite: citeMCP, Help: "frame shape; unset = the template's"},
		{Name: "area", Kind: KindEnum, Default: "auto", Options: areas, Cite: citeMCP, Help: "the princess's land (exotic_princess only)"},
		{Name: "beast", Kind: KindEnum, Default: "auto", Options: beasts, Cite: citeMCP, Help: "the companion beast (beast_companion only)"},
		boolField("bgm", false, "add background music"),
		payloadField(), callbackField(),
	}
	s.rules = []rule{templateFields}
}

// sourceVideo: extend and upscale-new take "video_creation_id or
// video_url": one is required; with both, the creation id is used.
func sourceVideo(s *Spec, b body) []FieldError {
	_, id := b.get("video_creation_id")
	_, url := b.get("video_url")
	if !id && !url {
		return []FieldError{{"video_creation_id", api.ReasonFieldLacking,
			"video_creation_id: required, or video_url: give a finished task's creation id or the video's URL"}}
	}
	return nil
}

// TemplateTakes reports whether a template takes a field that only some
// take (area, beast); other fields are every template's. An unknown
// template takes neither.
func TemplateTakes(template, field string) bool {
	for _, t := range templates {
		if t.Field == field {
			return t.Name == template
		}
	}
	return true
}

// templateFields: "area (only exotic_princess)", "beast (only
// beast_companion)", "prompt (optional for some templates, e.g. subject_3,
// pubg_winner_hit)": the other templates the notes name want a prompt. A
// template they do not name is sent as written, its prompt optional.
func templateFields(s *Spec, b body) []FieldError {
	v, _ := b.get("template")
	name, _ := v.(string)
	var errs []FieldError
	for _, field := range []string{"area", "beast"} {
		if _, set := b.get(field); set && !TemplateTakes(name, field) {
			owner := ""
			for _, t := range templates {
				if t.Field == field {
					owner = t.Name
				}
			}
			errs = append(errs, FieldError{field, api.ReasonFieldUnwanted, fmt.Sprintf("%s: only the %s template takes it", field, owner)})
		}
	}
	t, known := TemplateNamed(name)
	p, _ := b.get("prompt")
	if ps, _ := p.(string); known && !t.PromptOptional && strings.TrimSpace(ps) == "" {
		errs = append(errs, FieldError{"prompt", api.ReasonFieldLacking,
			fmt.Sprintf("prompt: required for the %s template (subject_3 and pubg_winner_hit make their video without one)", name)})
	}
	return errs
}

// retired are models the service's older pages list and it no longer
// serves ("svc1.5 appears only on older pages: retired"). A layer that
// adds one (the user's catalog.json) brings it back.
var retired = map[string][]api.Operation{
	"svc1.5": {api.OpText2Video, api.OpImg2Video, api.OpStartEnd2Video, api.OpReference2Video},
}

// citeRetired: where a retired model was read.
const citeRetired = "notes, The service in 2026: only older pages list it"

// Retired names the models of op the service no longer serves, with where
// that was read, unless a layer brought one back (then it is a model).
func Retired(op api.Operation) (models []string, cite string) {
	for m, ops := range retired {
		if slices.Contains(ops, op) && !slices.Contains(sharedModels(op), m) {
			models = append(models, m)
		}
	}
	slices.Sort(models)
	return models, citeRetired
}

// unknownModel says why model is no model of op: retired, or unknown.
func unknownModel(op api.Operation, model string) string {
	models := strings.Join(sharedModels(op), ", ")
	if slices.Contains(retired[model], op) {
		return fmt.Sprintf("%s is retired: the service no longer serves it on %s (only older pages list it); choose one of %s, or bring it back in catalog.json", model, op, models)
	}
	return fmt.Sprintf("%s has no model %s; choose one of %s", op, strconv.Quote(textutil.Clip(model, 60)), models)
}
