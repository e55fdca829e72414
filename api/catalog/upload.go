package catalog

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"clapper/api"
)

// UploadScheme starts the short URI an uploaded image is named by
// (service notes, Uploads): ssupload:?id=<id>. It is accepted wherever an
// image URL is.
const UploadScheme = "ssupload:"

// UploadURI names an uploaded image.
func UploadURI(id string) string { return UploadScheme + "?id=" + url.QueryEscape(id) }

// UploadID reads the id of an upload URI; ok is false for anything else.
func UploadID(s string) (id string, ok bool) {
	if len(s) < len(UploadScheme) || !strings.EqualFold(s[:len(UploadScheme)], UploadScheme) {
		return "", false
	}
	q, found := strings.CutPrefix(s[len(UploadScheme):], "?")
	if !found {
		return "", false
	}
	v, err := url.ParseQuery(q)
	if err != nil || strings.TrimSpace(v.Get("id")) == "" {
		return "", false
	}
	return v.Get("id"), true
}

// isUploadURI reports whether s uses the upload scheme, well formed or not.
func isUploadURI(s string) bool {
	return len(s) >= len(UploadScheme) && strings.EqualFold(s[:len(UploadScheme)], UploadScheme)
}

// checkUpload checks an upload URI given for a media field: only images
// are uploaded.
func checkUpload(f Field, label, s string) []FieldError {
	if f.Media != MediaImage || f.Kind == KindURL {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, label + ": an ssupload: URI names an uploaded image; this field takes " + f.Media.String()}}
	}
	if _, ok := UploadID(s); !ok {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, label + ": an upload URI reads ssupload:?id=<id>"}}
	}
	return nil
}

// Relabel gives every image data URI of a request the content type its
// bytes have (a PNG sent as data:image/jpeg becomes data:image/png), as the
// service reads images by their content. It returns the body (the same map
// when nothing changed) and the values relabelled, as "images[0]" or
// "subjects[1].images[0]". Anything that is not an image it can read is
// left for Validate to explain.
func Relabel(op api.Operation, req map[string]any) (map[string]any, []string) {
	return MapImages(op, req, relabelImage)
}

// Relabel is Relabel for a body of this spec (a subject's too).
func (s *Spec) Relabel(req map[string]any) (map[string]any, []string) {
	return s.MapImages(req, relabelImage)
}

// MapImages calls fn on every image value of a request (image fields and
// the images of subjects) and puts what it answers in place of the value
// when it answers true. It returns the body, a copy when anything changed,
// and the labels of the values changed, as "images[0]" or
// "subjects[1].images[0]". fn reads the catalog's own Field: it must not
// change its options or formats.
func MapImages(op api.Operation, req map[string]any, fn func(f Field, value string) (string, bool)) (map[string]any, []string) {
	model, _ := req["model"].(string)
	s, err := shared(op, model)
	if err != nil {
		return req, nil
	}
	return s.MapImages(req, fn)
}

// MapImages is MapImages for a body of this spec.
func (s *Spec) MapImages(req map[string]any, fn func(f Field, value string) (string, bool)) (map[string]any, []string) {
	var out map[string]any
	var changed []string
	set := func(k string, v any) {
		if out == nil {
			out = maps.Clone(req)
		}
		out[k] = v
	}
	for _, f := range s.Fields {
		v := req[f.Name]
		switch {
		case f.Media == MediaImage && f.Kind == KindMedia:
			if str, ok := v.(string); ok {
				if fixed, ok := fn(f, str); ok {
					set(f.Name, fixed)
					changed = append(changed, f.Name)
				}
			}
		case f.Media == MediaImage && f.Kind == KindMediaList:
			if list, names := mapImageList(f, v, f.Name, fn); names != nil {
				set(f.Name, list)
				changed = append(changed, names...)
			}
		case f.Kind == KindSubjects:
			items, _ := v.([]any)
			var fixedItems []any
			imgF := Field{Name: "images", Kind: KindMediaList, Media: MediaImage}
			for i, it := range items {
				obj, ok := it.(map[string]any)
				if !ok {
					continue
				}
				if list, names := mapImageList(imgF, obj["images"], fmt.Sprintf("subjects[%d].images", i), fn); names != nil {
					if fixedItems == nil {
						fixedItems = slices.Clone(items)
					}
					o := maps.Clone(obj)
					o["images"] = list
					fixedItems[i] = o
					changed = append(changed, names...)
				}
			}
			if fixedItems != nil {
				set(f.Name, fixedItems)
			}
		case f.Kind == KindKeyFrames:
			items, _ := v.([]any)
			var fixedItems []any
			imgF := Field{Name: "key_image", Kind: KindMedia, Media: MediaImage}
			for i, it := range items {
				obj, _ := it.(map[string]any)
				str, ok := obj["key_image"].(string)
				if !ok {
					continue
				}
				if fixed, ok := fn(imgF, str); ok {
					if fixedItems == nil {
						fixedItems = slices.Clone(items)
					}
					o := maps.Clone(obj)
					o["key_image"] = fixed
					fixedItems[i] = o
					changed = append(changed, fmt.Sprintf("%s[%d].key_image", f.Name, i))
				}
			}
			if fixedItems != nil {
				set(f.Name, fixedItems)
			}
		}
	}
	if out == nil {
		return req, nil
	}
	return out, changed
}

func mapImageList(f Field, v any, label string, fn func(Field, string) (string, bool)) ([]any, []string) {
	var list []any
	switch x := v.(type) {
	case []any:
		list = x
	case string:
		list = []any{x}
	default:
		return nil, nil
	}
	var out []any
	var names []string
	for i, it := range list {
		str, ok := it.(string)
		if !ok {
			continue
		}
		if fixed, ok := fn(f, str); ok {
			if out == nil {
				out = slices.Clone(list)
			}
			out[i] = fixed
			names = append(names, fmt.Sprintf("%s[%d]", label, i))
		}
	}
	return out, names
}

// relabelImage rewrites a data URI whose declared image type is not its
// content's, when the content is an image the field accepts.
func relabelImage(f Field, s string) (string, bool) {
	if !IsDataURI(s) {
		return "", false
	}
	d, err := ParseDataURI(s)
	if err != nil || !strings.HasPrefix(d.ContentType, "image/") {
		return "", false
	}
	info, err := InspectImage(d.Data)
	if err != nil || imageFormatOf[d.ContentType] == info.Format {
		return "", false
	}
	ct := "image/" + info.Format
	if !contains(f.contentTypes(), ct) {
		return "", false
	}
	return "data:" + ct + ";base64," + base64.StdEncoding.EncodeToString(d.Data), true
}

// MaxUploadBytes bounds an uploaded image: under 10 MB.
const MaxUploadBytes = maxImageBytes

// CheckUploadImage says what keeps bytes from being uploaded: only png,
// jpeg and webp images under 10 MB, at least 128x128, with an aspect ratio
// within 1:4 to 4:1 (service notes, Uploads).
func CheckUploadImage(data []byte) error {
	if len(data) >= MaxUploadBytes {
		return fmt.Errorf("image is %s; uploads must be under %s", api.ByteSize(int64(len(data))), api.ByteSize(MaxUploadBytes))
	}
	info, err := InspectImage(data)
	if err != nil || info.Format == "bmp" {
		return fmt.Errorf("content is not a png, jpeg or webp image")
	}
	if msg := shapeProblem("image", info.Width, info.Height); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// ImageContentType is the content type an image's bytes have ("" when
// they are no image clapper can read).
func ImageContentType(data []byte) string {
	info, err := InspectImage(data)
	if err != nil {
		return ""
	}
	return "image/" + info.Format
}
