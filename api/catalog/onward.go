package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"clapper/api"
)

// Sending a result onward: what each operation's result is, and which
// fields of which operations take such a result. Both are read from the
// tables, so a field or a model added to them (or by a layer) is a place
// to send to without another list.

// Output is what a finished task gives to send onward.
type Output int

const (
	OutputNone  Output = iota
	OutputImage        // an image file (reference2image)
	OutputVideo        // a video file (every video operation)
	OutputAudio        // an audio file (speech, sound effects)
	OutputVoice        // a voice id (a cloned voice)
)

var outputNames = [...]string{"nothing", "an image", "a video", "audio", "a voice"}

// String names the output as a sentence does: "an image".
func (o Output) String() string { return outputNames[o] }

// ResultMedia is the kind of file an operation's result is: an image for
// reference2image, audio for the audio operations (a clone's preview, a
// speech, sound effects, sound from text), a video for every other.
func ResultMedia(op api.Operation) Media {
	switch op {
	case api.OpReference2Image:
		return MediaImage
	case api.OpAudioTTS, api.OpAudioClone, api.OpTiming2Audio, api.OpText2Audio:
		return MediaAudio
	}
	return MediaVideo
}

// OutputOf is what a result of op is sent onward as: a clone gives its
// voice (its preview is only a sample of it), every other operation its
// file.
func OutputOf(op api.Operation) Output {
	if op == api.OpAudioClone {
		return OutputVoice
	}
	return map[Media]Output{MediaImage: OutputImage, MediaVideo: OutputVideo, MediaAudio: OutputAudio}[ResultMedia(op)]
}

// Target is one place a result can be sent to: a field of an operation, or
// one item of it where the item's place means something.
type Target struct {
	Operation api.Operation
	Field     string
	// Index is the list item the result goes to (start-end2video's first
	// frame is 0, its last 1); -1 adds it to the list, or sets a field
	// that holds one value.
	Index int
	// Item: the result goes into a new object of the list, under this key:
	// a new subject's "images" or "voice_id", a new key frame's
	// "key_image"; "" for a field, or a list of the results themselves.
	Item string
	// Models are the operation's models that take the field, in the
	// catalog's order; nil for an operation without models.
	Models []string
	// URLOnly: the field takes an http(s) URL only (the service fetches
	// it), never a file.
	URLOnly bool
	// Name is the place in people's words: "first frame", "source video".
	Name string
	// Takes is what the field takes, in the words of a field error:
	// "an image", "a video", "audio", "a voice".
	Takes Output
	// list: the field holds a JSON array; itemList: Item holds one (a
	// subject's images), where the result is its one entry.
	list, itemList bool
	// nth names one Item of the list by its place from 1, for a link
	// recorded there ("key frame %d").
	nth string
}

// Place puts value into the field's current value (nil when unset) and
// returns the field's new value with the label of where value went: a
// named item replaces that item, or joins the end when the list is shorter
// (so the label may differ from the target's); a list without named items
// gains it unless it holds it already; a new subject or key frame is added
// with it, labelled by its index (subjects[1].images), so that two tasks'
// results in two items are two links.
func (t Target) Place(current any, value string) (any, string) {
	items, _ := current.([]any)
	switch {
	case t.Item != "":
		v := any(value)
		if t.itemList {
			v = []any{value}
		}
		items = append(slices.Clone(items), map[string]any{t.Item: v})
		return items, t.itemLabel(len(items) - 1)
	case !t.list:
		return value, t.Field
	case t.Index >= 0 && t.Index < len(items):
		items = slices.Clone(items)
		items[t.Index] = value
		return items, t.Label()
	}
	if i := slices.Index(items, any(value)); i >= 0 && t.Index < 0 {
		return items, t.Field
	}
	items = append(slices.Clone(items), value)
	if t.Index < 0 {
		return items, t.Field
	}
	return items, t.Field + "[" + strconv.Itoa(len(items)-1) + "]"
}

// Holds reports whether the field's value still holds value (the result
// sent onward), and where: a form edited since the result was placed may
// have moved it, or dropped it.
func (t Target) Holds(current any, value string) (string, bool) {
	switch v := current.(type) {
	case string:
		return t.Field, !t.list && v == value
	case []any:
		for i, it := range v {
			if t.Item != "" {
				obj, _ := it.(map[string]any)
				switch x := obj[t.Item].(type) {
				case string:
					if !t.itemList && x == value {
						return t.itemLabel(i), true
					}
				case []any:
					if t.itemList && slices.Contains(x, any(value)) {
						return t.itemLabel(i), true
					}
				}
				continue
			}
			if s, _ := it.(string); s == value {
				if t.Index < 0 {
					return t.Field, true
				}
				return t.Field + "[" + strconv.Itoa(i) + "]", true
			}
		}
	}
	return "", false
}

// Label is the target as messages and the history name it: images[0],
// subjects[].images (a new subject: Place says which), video_url.
func (t Target) Label() string {
	switch {
	case t.Item != "":
		return t.itemLabel(-1)
	case t.Index >= 0:
		return t.Field + "[" + strconv.Itoa(t.Index) + "]"
	}
	return t.Field
}

// itemLabel names the item at index i of an Item target
// (image_settings[2].key_image), or with i < 0 a new one
// (image_settings[].key_image).
func (t Target) itemLabel(i int) string {
	n := ""
	if i >= 0 {
		n = strconv.Itoa(i)
	}
	return t.Field + "[" + n + "]." + t.Item
}

// itemAt is the item of an Item target a label names, as Place and Holds
// label it (subjects[1].images is 1).
func (t Target) itemAt(label string) (int, bool) {
	rest, ok := strings.CutPrefix(label, t.Field+"[")
	if !ok || t.Item == "" {
		return 0, false
	}
	n, ok := strings.CutSuffix(rest, "]."+t.Item)
	i, err := strconv.ParseUint(n, 10, 16)
	return int(i), ok && err == nil
}

// Targets lists every place a result of the given kind can go, in the
// spec's order of operations and, within one, of fields.
func Targets(out Output) []Target {
	var all []Target
	for _, op := range api.Operations() {
		models := sharedModels(op)
		specs := []*Spec{}
		if len(models) == 0 {
			if s, err := shared(op, ""); err == nil {
				specs = append(specs, s)
			}
		}
		for _, m := range models {
			if s, err := shared(op, m); err == nil {
				specs = append(specs, s)
			}
		}
		var found []Target
		for _, s := range specs {
			for _, f := range s.Fields {
				for _, t := range targetsOf(op, f, out) {
					i := slices.IndexFunc(found, func(x Target) bool { return x.Label() == t.Label() })
					if i < 0 {
						found = append(found, t)
						i = len(found) - 1
					}
					if s.Model != "" {
						found[i].Models = append(found[i].Models, s.Model)
					}
				}
			}
		}
		all = append(all, found...)
	}
	return all
}

// TargetFor finds the target a field label names (images[1], video_url,
// image_settings[2].key_image) for a result of the given kind; one item
// of a list of objects is named by its place ("key frame 3").
func TargetFor(op api.Operation, label string, out Output) (Target, bool) {
	for _, t := range Targets(out) {
		if t.Operation != op {
			continue
		}
		if i, ok := t.itemAt(label); ok {
			t.Name = fmt.Sprintf(t.nth, i+1)
			return t, true
		}
		if t.Label() == label || (t.Index < 0 && t.Field == label) {
			return t, true
		}
	}
	return Target{}, false
}

// TargetsOf lists the targets of one operation for a result of the given
// kind: where `clapper create OP --from TASK` can put it.
func TargetsOf(op api.Operation, out Output) []Target {
	var ts []Target
	for _, t := range Targets(out) {
		if t.Operation == op {
			ts = append(ts, t)
		}
	}
	return ts
}

// takes reports what a field takes, as an output.
func takes(f Field) Output {
	switch {
	case f.Kind == KindVoiceID && !f.NewVoice:
		return OutputVoice
	case f.Kind != KindMedia && f.Kind != KindMediaList && f.Kind != KindURL:
		return OutputNone
	}
	return map[Media]Output{MediaImage: OutputImage, MediaVideo: OutputVideo, MediaAudio: OutputAudio}[f.Media]
}

// targetsOf is where a field puts a result of the given kind: the field
// itself, each named item of it, a new subject's images or voice, or a new
// key frame's image.
func targetsOf(op api.Operation, f Field, out Output) []Target {
	base := Target{Operation: op, Field: f.Name, Index: -1, Takes: out, URLOnly: f.Kind == KindURL, Name: placeName(f.Help), list: f.Kind.IsList()}
	switch {
	case f.Kind == KindSubjects && out == OutputImage:
		// A subject takes images and a voice (checkSubjects); its videos
		// only on one model and at 5 s, so not from a result.
		base.Item, base.itemList, base.Name, base.nth = "images", true, "a new subject's images", "subject %d's images"
		return []Target{base}
	case f.Kind == KindSubjects && out == OutputVoice:
		base.Item, base.Name, base.nth = "voice_id", "a new subject's voice", "subject %d's voice"
		return []Target{base}
	case f.Kind == KindKeyFrames && out == OutputImage:
		// A key frame is its image (checkKeyFrames); its prompt and
		// duration are the user's to give, in the frames editor.
		base.Item, base.Name, base.nth = "key_image", "a new key frame", "key frame %d"
		return []Target{base}
	case f.Kind == KindSubjects || f.Kind == KindKeyFrames:
		return nil
	}
	if out == OutputNone || takes(f) != out {
		return nil
	}
	if len(f.ItemNames) == 0 {
		if f.Kind == KindMediaList && f.MaxItems == 1 {
			base.Index = 0 // the list's one item: the result replaces it
		}
		return []Target{base}
	}
	ts := make([]Target, len(f.ItemNames))
	for i, n := range f.ItemNames {
		ts[i] = base
		ts[i].Index, ts[i].Name = i, n
	}
	return ts
}

// placeName is a field's help up to its first clause: "source video",
// "the song", "reference images".
func placeName(help string) string {
	if i := strings.IndexAny(help, ";:(,"); i > 0 {
		help = help[:i]
	}
	return strings.TrimSpace(help)
}

// TargetNamed finds where a result of the given kind goes in op: the place
// label names (images[1], video_url), or, with no label, the operation's one
// place for it. A label naming a field of another kind, or no label where
// there are several places, is refused naming the fields and what they
// take.
func TargetNamed(op api.Operation, out Output, label string) (Target, error) {
	ts := TargetsOf(op, out)
	if label == "" {
		if len(ts) == 1 {
			return ts[0], nil
		}
		if len(ts) == 0 {
			return Target{}, fmt.Errorf("%s has no field that takes %s%s", op, out, takersOf(op))
		}
		return Target{}, fmt.Errorf("%s takes %s in %s: name one, as TASK_ID:%s", op, out, placesText(ts), ts[0].Label())
	}
	if t, ok := TargetFor(op, label, out); ok {
		return t, nil
	}
	name, _, _ := strings.Cut(label, "[")
	if f, ok := FieldOf(op, name); ok && takes(f) != OutputNone && takes(f) != out {
		return Target{}, fmt.Errorf("%s: %s's %s takes %s, not %s%s", label, op, name, takes(f), out, orPlaces(out, ts))
	}
	if _, ok := FieldOf(op, name); ok {
		return Target{}, fmt.Errorf("%s: %s's %s takes no result of a task%s", label, op, name, orPlaces(out, ts))
	}
	return Target{}, fmt.Errorf("%s: %s has no such field%s", label, op, orPlaces(out, ts))
}

func orPlaces(out Output, ts []Target) string {
	if len(ts) == 0 {
		return "; no field of it takes " + out.String()
	}
	return "; " + out.String() + " goes in " + placesText(ts)
}

// placesText lists places as "images[0] (first frame) or images[1] (last
// frame)".
func placesText(ts []Target) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Label() + " (" + t.Name + ")"
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
	}
	return parts[0]
}

// takersOf says what op's fields take, for a result that fits none of them.
func takersOf(op api.Operation) string {
	var parts []string
	for _, out := range []Output{OutputImage, OutputVideo, OutputAudio, OutputVoice} {
		if ts := TargetsOf(op, out); len(ts) > 0 {
			parts = append(parts, out.String()+" in "+placesText(ts))
		}
	}
	if len(parts) == 0 {
		return "; none of its fields takes a task's result"
	}
	return "; it takes " + strings.Join(parts, "; ")
}
