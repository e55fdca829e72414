package forms

import (
	"slices"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"clapper/api/catalog"
)

// The spec's Subject: "images ... at most 3", "videos ... at most 1 ...
// only for svcq2-pro"; svcq2-pro's split of 4 image or text subjects and 2
// video subjects is subjectRules' (api/catalog).
const (
	subjectImages   = 3
	subjectVideos   = 1
	proModel        = "svcq2-pro"
	proPlainSubject = 4
	proVideoSubject = 2
)

// subjectsEditor edits reference2video's subjects: one compact line per
// subject, the focused subject opened into its parts, and one text input
// for the focused part. It never mixes modes: typing always edits the part
// under the cursor, so its own commands are keys no text needs.
type subjectsEditor struct {
	ctx      *Context
	field    catalog.Field
	subjects []*subject
	cur      int // the focused subject; len(subjects) is the "add subject" row
	row      int // the focused part of the focused subject
	input    textinput.Model
	bound    string // the input's text as loaded, to tell typing from loading
	focused  bool
	undo     []subjectUndo
	notice   string
	warn     bool // the notice refuses something rather than reports it
	// paths completes the image or video path being typed with tab.
	paths *PathCompleter
}

// subject is one subject as typed. What the editor cannot show as a part is
// kept as given and sent back unchanged, flagged, never dropped.
type subject struct {
	name, voice, server string
	images, videos      []string
	extra               map[string]any // keys that are no subject part, or parts of the wrong type
	raw                 any            // an item that is no object at all
	isRaw               bool
}

type partKind int

const (
	partName partKind = iota
	partImage
	partVideo
	partVoice
	partServer
	partExtra
	partRaw
)

// part is one row of the opened subject; i indexes images or videos (i ==
// len is the empty slot that adds one), key names an extra.
type part struct {
	kind partKind
	i    int
	key  string
}

// subjectUndo brings back one removal: a subject (part.kind partRaw or
// partName), a media item or an extra key.
type subjectUndo struct {
	s     *subject
	at    int // the subject's index, or the item's
	kind  partKind
	value any
	key   string
}

func newSubjectsEditor(ctx *Context, f catalog.Field) *subjectsEditor {
	if ctx == nil {
		ctx = &Context{}
	}
	in := textinput.New()
	in.Prompt = ""
	return &subjectsEditor{ctx: ctx, field: f, input: in, paths: &PathCompleter{Dir: ctx.Dir}}
}

// SetField takes the new model's limits; the subjects stay as they are,
// shown against the new limits.
func (e *subjectsEditor) SetField(f catalog.Field) {
	e.field = f
	e.clampCursor()
	e.bind()
}

func (e *subjectsEditor) Focus() tea.Cmd {
	e.focused = true
	e.bind()
	return e.input.Focus()
}

func (e *subjectsEditor) Blur() {
	e.focused = false
	if e.cur < len(e.subjects) {
		e.subjects[e.cur].compact()
	}
	e.clampCursor()
	e.input.Blur()
}

// Names are the subjects' names in order, for [@name] in the prompt.
func (e *subjectsEditor) Names() []string {
	var names []string
	for _, s := range e.subjects {
		if !s.isRaw && s.name != "" {
			names = append(names, s.name)
		}
	}
	return names
}

func (e *subjectsEditor) Value() any {
	if len(e.subjects) == 0 {
		return nil
	}
	out := make([]any, len(e.subjects))
	for i, s := range e.subjects {
		out[i] = s.value()
	}
	return out
}

func (s *subject) value() any {
	if s.isRaw {
		return s.raw
	}
	m := make(map[string]any, 5+len(s.extra))
	for k, v := range s.extra {
		m[k] = v
	}
	put := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	putList := func(k string, list []string) {
		var l []any
		for _, v := range list {
			if v != "" {
				l = append(l, v)
			}
		}
		if l != nil {
			m[k] = l
		}
	}
	put("name", s.name)
	putList("images", s.images)
	putList("videos", s.videos)
	put("voice_id", s.voice)
	put("server_id", s.server)
	return m
}

// Set takes subjects as decoded from JSON. A part of an unexpected type
// (a number for a name, a list holding numbers) stays as given under its
// key, shown flagged; typing that part replaces it.
func (e *subjectsEditor) Set(v any) {
	e.subjects, e.undo, e.notice = nil, nil, ""
	items, ok := v.([]any)
	if !ok && v != nil {
		items = []any{v}
	}
	for _, it := range items {
		e.subjects = append(e.subjects, parseSubject(it))
	}
	e.cur, e.row = 0, 0
	e.bind()
}

func parseSubject(it any) *subject {
	obj, ok := it.(map[string]any)
	if !ok {
		return &subject{raw: it, isRaw: true}
	}
	s := &subject{}
	keep := func(k string, v any) {
		if s.extra == nil {
			s.extra = map[string]any{}
		}
		s.extra[k] = v
	}
	for k, v := range obj {
		var str *string
		var list *[]string
		switch k {
		case "name":
			str = &s.name
		case "voice_id":
			str = &s.voice
		case "server_id":
			str = &s.server
		case "images":
			list = &s.images
		case "videos":
			list = &s.videos
		default:
			keep(k, v)
			continue
		}
		switch {
		case v == nil:
		case str != nil:
			if x, ok := v.(string); ok {
				*str = x
			} else {
				keep(k, v)
			}
		default:
			if l, ok := stringList(v); ok {
				*list = l
			} else {
				keep(k, v)
			}
		}
	}
	return s
}

// stringList reads a media list: a list of strings, or one string as the
// catalog's Normalize reads it.
func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []string:
		return slices.Clone(x), true
	case []any:
		out := make([]string, 0, len(x))
		for _, it := range x {
			s, ok := it.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// pro reports whether the chosen model takes video subjects.
func (e *subjectsEditor) pro() bool { return e.ctx.Model == proModel }

// parts are the rows of an opened subject.
func (e *subjectsEditor) parts(s *subject) []part {
	if s.isRaw {
		return []part{{kind: partRaw}}
	}
	ps := make([]part, 0, 8+len(s.extra))
	ps = append(ps, part{kind: partName})
	for i := range s.images {
		ps = append(ps, part{kind: partImage, i: i})
	}
	if len(s.images) < subjectImages {
		ps = append(ps, part{kind: partImage, i: len(s.images)})
	}
	for i := range s.videos {
		ps = append(ps, part{kind: partVideo, i: i})
	}
	if e.pro() && len(s.videos) < subjectVideos {
		ps = append(ps, part{kind: partVideo, i: len(s.videos)})
	}
	ps = append(ps, part{kind: partVoice}, part{kind: partServer})
	for _, k := range sortedKeys(s.extra) {
		ps = append(ps, part{kind: partExtra, key: k})
	}
	return ps
}

// text is a part's string; ok is false for parts that are not text.
func (s *subject) text(p part) (string, bool) {
	switch p.kind {
	case partName:
		return s.name, true
	case partVoice:
		return s.voice, true
	case partServer:
		return s.server, true
	case partImage:
		if p.i < len(s.images) {
			return s.images[p.i], true
		}
		return "", true
	case partVideo:
		if p.i < len(s.videos) {
			return s.videos[p.i], true
		}
		return "", true
	}
	return "", false
}

// setText stores typed text; typing into the empty slot adds the item.
// Typing a part that was kept flagged (a name that was a number) replaces it.
func (s *subject) setText(p part, v string) {
	switch p.kind {
	case partName:
		s.name = v
		delete(s.extra, "name")
	case partVoice:
		s.voice = v
		delete(s.extra, "voice_id")
	case partServer:
		s.server = v
		delete(s.extra, "server_id")
	case partImage:
		s.images = setItem(s.images, p.i, v)
		delete(s.extra, "images")
	case partVideo:
		s.videos = setItem(s.videos, p.i, v)
		delete(s.extra, "videos")
	}
}

func setItem(list []string, i int, v string) []string {
	if i < len(list) {
		list[i] = v
		return list
	}
	if v == "" {
		return list
	}
	return append(list, v)
}

// compact drops the media items emptied by typing, once the cursor has
// left the subject (dropping them at once would move the rows under it).
func (s *subject) compact() {
	s.images = slices.DeleteFunc(s.images, func(v string) bool { return v == "" })
	s.videos = slices.DeleteFunc(s.videos, func(v string) bool { return v == "" })
}

func (s *subject) count(list []string) int {
	n := 0
	for _, v := range list {
		if v != "" {
			n++
		}
	}
	return n
}

// current is the focused part, ok false on the "add subject" row.
func (e *subjectsEditor) current() (*subject, part, bool) {
	if e.cur >= len(e.subjects) {
		return nil, part{}, false
	}
	s := e.subjects[e.cur]
	ps := e.parts(s)
	return s, ps[min(e.row, len(ps)-1)], true
}

// editable reports whether the focused part takes typing. A data URI is
// shown by its size, not typed over: base64 is not edited by hand.
func (e *subjectsEditor) editable() bool {
	s, p, ok := e.current()
	if !ok {
		return false
	}
	t, isText := s.text(p)
	return isText && !heldMedia(t)
}

// bind loads the focused part into the input.
func (e *subjectsEditor) bind() {
	t := ""
	if e.editable() {
		s, p, _ := e.current()
		t, _ = s.text(p)
	}
	e.input.SetValue(t)
	e.input.CursorEnd()
	e.bound = e.input.Value()
	e.paths.Changed("")
}

// onMedia reports that the focused part takes a path: an image or a video,
// whose file types it completes.
func (e *subjectsEditor) onMedia() bool {
	_, p, ok := e.current()
	if !ok || !e.editable() || (p.kind != partImage && p.kind != partVideo) {
		return false
	}
	m := catalog.MediaImage
	if p.kind == partVideo {
		m = catalog.MediaVideo
	}
	e.paths.Exts = mediaExtensions(catalog.Field{Media: m})
	return true
}

func (e *subjectsEditor) clampCursor() {
	e.cur = min(max(e.cur, 0), len(e.subjects))
	if e.cur < len(e.subjects) {
		e.row = min(max(e.row, 0), len(e.parts(e.subjects[e.cur]))-1)
	} else {
		e.row = 0
	}
}
