package sandbox

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
)

// IgnoredFieldsHeader names, on the answer to a request, the fields the
// sandbox ignored (comma-separated, sorted), so a developer sees what the
// service would not have used although nothing was refused.
const IgnoredFieldsHeader = "X-Sandbox-Ignored-Fields"

// CoercedFieldsHeader names, likewise, the fields sent as a JSON string
// holding a number that the sandbox read as that number, where the
// service's own examples send them so ("duration": "10" in text2audio).
const CoercedFieldsHeader = "X-Sandbox-Coerced-Fields"

// specFor is the rules a creation body asks for: its model's, or nil when
// it names no model of the operation (the catalog refuses that first).
func specFor(op api.Operation, body map[string]any) *catalog.Spec {
	model := ""
	if catalog.Models(op) != nil {
		model, _ = body["model"].(string)
	}
	s, err := catalog.Lookup(op, model)
	if err != nil {
		return nil
	}
	return s
}

// lenient returns the body as the service reads it, the fields it
// ignored and those it read as numbers from strings. The service ignores what its request does not use, and clients
// written for it send such fields every day: a field no table of the
// operation lists, or an optional setting the spec gives only to other
// models. Inputs the model cannot use (videos, subjects, sounds) are kept,
// so that the catalog refuses them as the spec does: ignoring them would
// make a different video than the one asked for.
func lenient(s *catalog.Spec, body map[string]any) (out map[string]any, ignored, coerced []string) {
	out = maps.Clone(body)
	for k, v := range body {
		if f, ok := s.Field(k); ok {
			if n, ok := catalog.NumericString(f, v); ok {
				out[k] = n
				coerced = append(coerced, k)
			}
			continue
		}
		if f, ok := catalog.FieldOf(s.Operation, k); ok && isInput(f) {
			continue
		}
		delete(out, k)
		ignored = append(ignored, k)
	}
	if s.Operation == api.OpTemplate2Video {
		// area and beast belong to one template each; sent for another
		// (the official MCP server's defaults), they do nothing.
		name, _ := out["template"].(string)
		for _, k := range []string{"area", "beast"} {
			if _, sent := out[k]; sent && !catalog.TemplateTakes(name, k) {
				delete(out, k)
				ignored = append(ignored, k)
			}
		}
	}
	if id, _ := out["video_creation_id"].(string); id != "" && out["video_url"] != nil {
		// extend and upscale-new: "the creation id wins when both are sent".
		delete(out, "video_url")
		ignored = append(ignored, "video_url")
	}
	if _, ok := s.Field("subjects"); ok {
		if items, ok := out["subjects"].([]any); ok {
			out["subjects"], ignored = subjectNames(items, ignored)
		}
	}
	// The service reads an image by its content: a PNG labelled
	// data:image/jpeg is a PNG. Its label is what is ignored.
	out, relabelled := s.Relabel(out)
	for _, name := range relabelled {
		ignored = append(ignored, name+".content_type")
	}
	sort.Strings(ignored)
	sort.Strings(coerced)
	return out, ignored, coerced
}

// isInput reports whether a field carries what a task is made from rather
// than a setting of how it is made.
func isInput(f catalog.Field) bool {
	return f.Kind == catalog.KindSubjects || f.Media != catalog.MediaNone
}

// subjectNames reads a subject's id, the older key of its name, as the name
// when no name is given; beside a name, the id is ignored.
func subjectNames(items []any, ignored []string) ([]any, []string) {
	items = slices.Clone(items)
	for i, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			continue
		}
		id, hasID := obj["id"]
		if !hasID {
			continue
		}
		o := maps.Clone(obj)
		delete(o, "id")
		if name := o["name"]; name == nil || name == "" {
			o["name"] = id
		} else {
			ignored = append(ignored, fmt.Sprintf("subjects[%d].id", i))
		}
		items[i] = o
	}
	return items, ignored
}

// readLenient reads a request body, drops what the service would ignore
// under spec (nil: nothing is dropped) and names it in the answer's
// IgnoredFieldsHeader, on refusals too; numbers read from strings are
// named in CoercedFieldsHeader.
func readLenient(rp *reply, r *http.Request, spec func(map[string]any) *catalog.Spec) (map[string]any, *api.Error) {
	body, e := readBody(rp.w, r)
	if e != nil {
		return nil, e
	}
	s := spec(body)
	if s == nil {
		return body, nil
	}
	body, ignored, coerced := lenient(s, body)
	if len(ignored) > 0 {
		rp.w.Header().Set(IgnoredFieldsHeader, strings.Join(ignored, ","))
	}
	if len(coerced) > 0 {
		rp.w.Header().Set(CoercedFieldsHeader, strings.Join(coerced, ","))
	}
	return body, nil
}
