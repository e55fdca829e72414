package catalog

import (
	"encoding/json"
	"math"
	"regexp"

	"clapper/api"
)

// Normalize returns a request body as it should go on the wire, keeping
// its meaning: unset values (null, "", an empty list) are left out; a single
// media string given for a list becomes a list of one; a whole number
// written 5.0 or 1e1 for an integer field is sent as 5 or 10; a DATA: URI
// scheme is written data:. Values Validate refuses are left as they are,
// for the service to judge when a request is forced.
func Normalize(op api.Operation, req map[string]any) map[string]any {
	model, _ := req["model"].(string)
	spec, err := shared(op, model)
	if err != nil {
		spec = &Spec{Operation: op}
	}
	out := make(map[string]any, len(req))
	for k, v := range req {
		f, known := spec.Field(k)
		if !known {
			f, known = FieldOf(op, k)
		}
		_, set := body(req).get(k)
		l, isList := v.([]any)
		// An empty list for a field that is no list is a type error, not
		// "unset": a forced request keeps it.
		wrongEmpty := isList && len(l) == 0 && known && !f.Kind.IsList()
		if !set && !wrongEmpty {
			continue
		}
		if known {
			v = wireValue(f, v)
		}
		out[k] = v
	}
	return out
}

// wireValue gives one valid value the wire form of its field's kind.
func wireValue(f Field, v any) any {
	if x, ok := NumericString(f, v); ok {
		v = x // clapper sends the number the service would read
	}
	switch f.Kind {
	case KindInt:
		if x, ok := v.(json.Number); ok && intLiteral.MatchString(string(x)) {
			return v // as written: a float64 would round beyond 2^53
		}
		if n, ok := number(v); ok && n == math.Trunc(n) && math.Abs(n) <= maxSeed {
			return int64(n)
		}
	case KindMedia:
		if s, ok := v.(string); ok {
			return lowerScheme(s)
		}
	case KindMediaList:
		if s, ok := v.(string); ok {
			return []any{lowerScheme(s)}
		}
		return mapList(v, lowerSchemeOf)
	case KindStringList:
		if s, ok := v.(string); ok {
			return []any{s}
		}
	case KindKeyFrames:
		durF := Field{Kind: KindInt}
		return mapList(v, func(it any) any {
			obj, ok := it.(map[string]any)
			if !ok {
				return it
			}
			out := make(map[string]any, len(obj))
			for k, x := range obj {
				switch k {
				case "key_image":
					x = lowerSchemeOf(x)
				case "duration":
					x = wireValue(durF, x)
				}
				out[k] = x
			}
			return out
		})
	case KindSubjects:
		return mapList(v, func(it any) any {
			obj, ok := it.(map[string]any)
			if !ok {
				return it
			}
			out := make(map[string]any, len(obj))
			for k, x := range obj {
				if k == "images" || k == "videos" {
					x = mapList(x, lowerSchemeOf)
				}
				out[k] = x
			}
			return out
		})
	}
	return v
}

var intLiteral = regexp.MustCompile(`^-?[0-9]+$`)

// numberLiteral is a JSON number, as a string's content must be to be read
// as one: no spaces, hex, Inf or NaN.
var numberLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// NumericString reads v, a string holding a JSON number, as that number
// where the field takes one so (NumericString: the service's own examples
// send "duration": "10"); ok is false for anything else.
func NumericString(f Field, v any) (json.Number, bool) {
	s, isStr := v.(string)
	if !isStr || !f.NumericString || (f.Kind != KindInt && f.Kind != KindNumber) || !numberLiteral.MatchString(s) {
		return "", false
	}
	return json.Number(s), true
}

func lowerScheme(s string) string {
	if IsDataURI(s) && s[:5] != "data:" {
		return "data:" + s[5:] // a copy: only when the scheme is not lower case already
	}
	return s
}

func lowerSchemeOf(v any) any {
	if s, ok := v.(string); ok {
		return lowerScheme(s)
	}
	return v
}

// mapList applies fn to each item of a list, in a new list.
func mapList(v any, fn func(any) any) any {
	l, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(l))
	for i, it := range l {
		out[i] = fn(it)
	}
	return out
}
