package catalog

import (
	"clapper/internal/textutil"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Kind is the shape of a field's value on the wire.
type Kind int

const (
	KindText          Kind = iota // free text, bounded in characters
	KindInt                       // whole number
	KindNumber                    // any number
	KindBool                      // true or false
	KindEnum                      // one of Options (or any W:H ratio when AnyRatio)
	KindMedia                     // one image, video or audio: URL or data URI
	KindMediaList                 // a list of media
	KindURL                       // an http(s) URL only (the service fetches it)
	KindVoiceID                   // a voice identifier
	KindColor                     // HEX colour #RRGGBB
	KindJSONText                  // a string holding a JSON document
	KindSubjects                  // list of Subject objects
	KindTimingPrompts             // list of Timing prompt objects
	KindJSONArray                 // a list whose elements the spec does not show
	KindStringList                // a list of identifiers
	KindKeyFrames                 // list of key frame objects {key_image, prompt, duration} (multiframe)
)

var kindNames = map[Kind]string{
	KindText: "text", KindInt: "integer", KindNumber: "number", KindBool: "boolean",
	KindEnum: "choice", KindMedia: "media", KindMediaList: "media list", KindURL: "URL",
	KindVoiceID: "voice id", KindColor: "HEX colour", KindJSONText: "JSON text",
	KindSubjects: "subjects", KindTimingPrompts: "timing prompts", KindJSONArray: "JSON array",
	KindStringList: "list", KindKeyFrames: "key frames",
}

func (k Kind) String() string { return kindNames[k] }

// IsList reports whether the field holds a JSON array.
func (k Kind) IsList() bool {
	switch k {
	case KindMediaList, KindSubjects, KindTimingPrompts, KindJSONArray, KindStringList, KindKeyFrames:
		return true
	}
	return false
}

// Media is what a media field carries.
type Media int

const (
	MediaNone Media = iota
	MediaImage
	MediaVideo
	MediaAudio
)

func (m Media) String() string {
	return [...]string{"", "image", "video", "audio"}[m]
}

// Pauses names the pause-marker syntax a text field accepts.
type Pauses int

const (
	PausesNone    Pauses = iota
	PausesTTS            // <#x#>
	PausesLipSync        // #x#
)

// Range bounds a number; Max 0 with HasMax false means unbounded above.
type Range struct {
	Min, Max float64
	HasMax   bool
}

// Field is one request field as one model of one operation accepts it.
type Field struct {
	Name     string
	Kind     Kind
	Help     string
	Required bool
	// Default is the value the service applies when the field is unset; nil
	// when the spec shows none. Clients do not send it.
	Default any
	Options []string
	// OptionHelp says what an option means where its name does not.
	OptionHelp map[string]string
	// AnyRatio lets an aspect ratio be any W:H within 1:4..4:1 besides Options.
	AnyRatio bool
	// OpenChoice: Options are the values known here, and any other name is
	// sent as written (template2video's templates: the service's list is
	// long and changes).
	OpenChoice bool
	Range      *Range
	Unit       string // "seconds", shown with ranges
	// MinItems and MaxItems bound a list; MaxItems 0 means no bound shown.
	MinItems, MaxItems int
	MaxChars           int // 0 means no bound shown
	MinChars           int // 0 means no lower bound shown
	Media              Media
	// ImageFormats overrides the accepted image formats (lip reference faces take bmp).
	ImageFormats []string
	// MaxDecoded bounds each data URI's decoded bytes; 0 means the default for the media.
	MaxDecoded int64
	// DecodedAtMost makes MaxDecoded inclusive, where the spec says "at most"
	// rather than "under".
	DecodedAtMost bool
	// VideoShape applies the image frame rule (128x128, 1:4 to 4:1) to a
	// video whose header states its size.
	VideoShape bool
	// ItemNames say what a list's items stand for where their place means
	// something: start-end2video's images are its first and last frame.
	ItemNames []string
	// NewVoice marks a voice id field that names a voice being made (the
	// clone's own id), not one that exists already.
	NewVoice bool
	Pauses   Pauses
	// MaxSeconds bounds a video's or audio's length when it can be read from a data URI.
	MinSeconds, MaxSeconds float64
	// Source is the layer the rule comes from: the spec's tables, the
	// service's documented additions or the user's catalog file.
	Source Layer
	// NumericString: the service reads a JSON string holding a number as
	// that number here, as its own examples send it ("duration": "10");
	// clapper itself sends the number (Normalize).
	NumericString bool
	// Cite says where a rule beyond the spec's tables was read: the service
	// notes' section and which of its sources ("The service in 2026: one
	// source, ComfyUI's node"), so a rule from a weak source shows as such.
	Cite string
}

// Describe renders the field's rules on one line for `clapper models` and form help.
func (f Field) Describe() string {
	var parts []string
	t := f.Kind.String()
	if f.Media != MediaNone {
		t = f.Media.String()
		if f.Kind == KindMediaList {
			t += " list"
		}
	}
	parts = append(parts, t)
	if f.Required {
		parts = append(parts, "required")
	}
	if f.Default != nil {
		parts = append(parts, "default "+FormatValue(f.Default))
	}
	switch {
	case len(f.Options) == 1:
		parts = append(parts, "only "+f.Options[0])
	case len(f.Options) > 1:
		o := strings.Join(f.Options, ", ")
		if f.AnyRatio {
			o += " or any W:H"
		}
		if f.OpenChoice {
			o += " or another name"
		}
		o += unitText(f) // some values of a range: "4, 8 seconds"
		parts = append(parts, "one of "+o)
	}
	if f.Range != nil && len(f.Options) == 0 {
		parts = append(parts, f.rangeText())
	}
	if f.MinItems > 0 || f.MaxItems > 0 {
		parts = append(parts, f.countText())
	}
	if f.NumericString {
		parts = append(parts, "also a numeric string")
	}
	switch {
	case f.MinChars > 0 && f.MaxChars > 0:
		parts = append(parts, fmt.Sprintf("%d to %d characters", f.MinChars, f.MaxChars))
	case f.MinChars > 0:
		parts = append(parts, fmt.Sprintf("at least %d characters", f.MinChars))
	case f.MaxChars > 0:
		parts = append(parts, fmt.Sprintf("at most %d characters", f.MaxChars))
	}
	switch {
	case f.MinSeconds > 0:
		parts = append(parts, fmt.Sprintf("%s to %s s long", trimFloat(f.MinSeconds), trimFloat(f.MaxSeconds)))
	case f.MaxSeconds > 0:
		parts = append(parts, fmt.Sprintf("at most %s s long", trimFloat(f.MaxSeconds)))
	}
	return strings.Join(parts, "; ")
}

func (f Field) rangeText() string {
	r := f.Range
	unit := ""
	if f.Unit != "" {
		unit = " " + f.Unit
	}
	switch {
	case r.HasMax && r.Min == r.Max:
		return "only " + trimFloat(r.Min) + unit
	case r.HasMax:
		return trimFloat(r.Min) + " to " + trimFloat(r.Max) + unit
	default:
		return "at least " + trimFloat(r.Min) + unit
	}
}

// countText says how many items a list field takes. It is the one wording
// of a count rule: `clapper models` shows it and validation quotes it.
func (f Field) countText() string {
	noun := "item"
	if f.Media != MediaNone {
		noun = f.Media.noun()
	}
	if f.Kind == KindKeyFrames {
		noun = "key frame"
	}
	switch {
	case f.MaxItems == 0:
		return "at least " + textutil.Plural(f.MinItems, noun)
	case f.MinItems == f.MaxItems:
		return "exactly " + textutil.Plural(f.MinItems, noun)
	case f.MinItems == 0:
		return "at most " + textutil.Plural(f.MaxItems, noun)
	default:
		return fmt.Sprintf("%d to %s", f.MinItems, textutil.Plural(f.MaxItems, noun))
	}
}

// noun names one item of the media in a count.
func (m Media) noun() string {
	if m == MediaAudio {
		return "audio file"
	}
	return m.String()
}

// FormatValue renders a default or a value the way a user types it: text
// as is, numbers without trailing zeros, anything else as JSON.
func FormatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return trimFloat(x)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	default:
		return jsonText(v)
	}
}

// jsonText renders any value as the JSON a user would have written, never
// as Go syntax, clipped for a message.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "a value that is not JSON"
	}
	return textutil.Clip(string(b), 60)
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
