// A key-frame list as the request holds it and back: the editor's frames
// to image_settings, and a draft's or a result's value to frames.

package forms

import (
	"encoding/json"
	"strings"
)

func (e *framesEditor) Value() any {
	if len(e.frames) == 0 {
		return nil
	}
	out := make([]any, len(e.frames))
	for i, fr := range e.frames {
		out[i] = fr.value()
	}
	return out
}

func (fr *keyFrame) value() any {
	if fr.isRaw {
		return fr.raw
	}
	m := make(map[string]any, 3+len(fr.extra))
	for k, v := range fr.extra {
		m[k] = v
	}
	if s := strings.TrimSpace(fr.image); s != "" {
		m["key_image"] = s
	}
	if strings.TrimSpace(fr.prompt) != "" {
		m["prompt"] = fr.prompt
	}
	if s := strings.TrimSpace(fr.duration); s != "" {
		m["duration"] = number(s)
	}
	return m
}

// Set takes frames as decoded from JSON (a draft, a duplicated task). A
// part of an unexpected type stays as given, flagged; typing that part
// replaces it.
func (e *framesEditor) Set(v any) {
	e.frames, e.undo, e.notice = nil, nil, ""
	items, ok := v.([]any)
	if !ok && v != nil {
		items = []any{v}
	}
	for _, it := range items {
		e.frames = append(e.frames, parseFrame(it))
	}
	e.cur, e.part = 0, frameImage
	e.clamp()
	e.bind()
}

func parseFrame(it any) *keyFrame {
	obj, ok := it.(map[string]any)
	if !ok {
		return &keyFrame{raw: it, isRaw: true}
	}
	fr := &keyFrame{}
	keep := func(k string, v any) {
		if fr.extra == nil {
			fr.extra = map[string]any{}
		}
		fr.extra[k] = v
	}
	for k, v := range obj {
		switch k {
		case "key_image", "prompt":
			s, ok := v.(string)
			if !ok {
				keep(k, v)
				continue
			}
			if k == "key_image" {
				fr.image = s
			} else {
				fr.prompt = s
			}
		case "duration":
			switch d := v.(type) {
			case json.Number:
				fr.duration = d.String()
			case float64:
				fr.duration = num(d)
			default:
				keep(k, v)
			}
		default:
			keep(k, v)
		}
	}
	return fr
}

// text is a part's string.
func (fr *keyFrame) text(p framePart) string {
	switch p {
	case frameImage:
		return fr.image
	case framePrompt:
		return fr.prompt
	}
	return fr.duration
}

// setText stores typed text; typing a part that was kept flagged replaces it.
func (fr *keyFrame) setText(p framePart, v string) {
	switch p {
	case frameImage:
		fr.image = v
		delete(fr.extra, "key_image")
	case framePrompt:
		fr.prompt = v
		delete(fr.extra, "prompt")
	case frameDuration:
		fr.duration = v
		delete(fr.extra, "duration")
	}
}
