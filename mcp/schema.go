package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"clapper/api"
	"clapper/api/catalog"
)

// variant is one model's definition of a field.
type variant struct {
	model string
	field catalog.Field
}

// operationSchema is the input schema of create_<op>, generated from the
// catalog: every field any model takes, with its type, the union of the
// models' options and ranges, and a description that states each model's
// rules where they differ. The schema tells an agent what to send; the
// catalog's Validate judges what it sent, naming the field.
func operationSchema(op api.Operation) *jsonschema.Schema {
	models := catalog.Models(op)
	byField := map[string][]variant{}
	for _, m := range modelsOrNone(op) {
		spec, err := catalog.Lookup(op, m)
		if err != nil {
			panic(err) // the catalog lists the model: a build defect every test catches
		}
		for _, f := range spec.Fields {
			byField[f.Name] = append(byField[f.Name], variant{m, f})
		}
	}
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, name := range catalog.FieldNames(op) {
		vs := byField[name]
		s.Properties[name] = fieldSchema(vs, models)
		if len(vs) == len(modelsOrNone(op)) && allOf(vs, func(f catalog.Field) bool { return f.Required }) {
			s.Required = append(s.Required, name)
		}
	}
	if models != nil {
		enum := make([]any, len(models))
		for i, m := range models {
			enum[i] = m
		}
		s.Properties["model"] = &jsonschema.Schema{Type: "string", Enum: enum,
			Description: "The model. Which fields it takes and their rules are in each field's description; describe_operation gives them model by model."}
		if !contains(s.Required, "model") {
			s.Required = append([]string{"model"}, s.Required...)
		}
	}
	return s
}

func modelsOrNone(op api.Operation) []string {
	if ms := catalog.Models(op); ms != nil {
		return ms
	}
	return []string{""}
}

func fieldSchema(vs []variant, models []string) *jsonschema.Schema {
	f := vs[0].field
	s := valueSchema(f)
	// Options: the union, unless some model takes any W:H ratio.
	if f.Kind == catalog.KindEnum && !anyOf(vs, func(f catalog.Field) bool { return f.AnyRatio }) {
		var enum []any
		for _, v := range vs {
			for _, o := range v.field.Options {
				if !containsAny(enum, o) {
					enum = append(enum, o)
				}
			}
		}
		s.Enum = enum
	}
	if allOf(vs, func(f catalog.Field) bool { return f.Range != nil }) {
		lo, hi, bounded := math.Inf(1), math.Inf(-1), true
		for _, v := range vs {
			lo = min(lo, v.field.Range.Min)
			hi = max(hi, v.field.Range.Max)
			bounded = bounded && v.field.Range.HasMax
		}
		s.Minimum = &lo
		if bounded {
			s.Maximum = &hi
		}
	}
	if f.Kind.IsList() {
		lo, hi := math.MaxInt, 0
		for _, v := range vs {
			lo = min(lo, v.field.MinItems)
			if v.field.MaxItems == 0 {
				hi = -1
			} else if hi >= 0 {
				hi = max(hi, v.field.MaxItems)
			}
		}
		if lo > 0 {
			s.MinItems = &lo
		}
		if hi > 0 {
			s.MaxItems = &hi
		}
	}
	if allOf(vs, func(f catalog.Field) bool { return f.MaxChars > 0 }) {
		n := 0
		for _, v := range vs {
			n = max(n, v.field.MaxChars)
		}
		s.MaxLength = &n
	}
	if d := f.Default; d != nil && allOf(vs, func(g catalog.Field) bool { return reflect.DeepEqual(g.Default, d) }) {
		if b, err := json.Marshal(d); err == nil {
			s.Default = b
		}
	}
	s.Description = fieldDescription(vs, models)
	return s
}

// valueSchema is the JSON type of a field's value.
func valueSchema(f catalog.Field) *jsonschema.Schema {
	str := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }
	switch f.Kind {
	case catalog.KindInt:
		return &jsonschema.Schema{Type: "integer"}
	case catalog.KindNumber:
		return &jsonschema.Schema{Type: "number"}
	case catalog.KindBool:
		return &jsonschema.Schema{Type: "boolean"}
	case catalog.KindMediaList, catalog.KindStringList, catalog.KindJSONArray:
		return &jsonschema.Schema{Type: "array", Items: str()}
	case catalog.KindSubjects:
		list := &jsonschema.Schema{Type: "array", Items: str()}
		return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "object", Required: []string{"name"},
			Properties: map[string]*jsonschema.Schema{
				"name": str(), "images": list, "videos": list, "voice_id": str(), "server_id": str(),
			}}}
	case catalog.KindTimingPrompts:
		num := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "number", Minimum: new(float64)} }
		return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "object", Required: []string{"from", "to", "prompt"},
			Properties: map[string]*jsonschema.Schema{"from": num(), "to": num(), "prompt": str()}}}
	}
	return str()
}

// fieldDescription is the field's help, what kind of value it takes, and
// its rules: once when every model agrees, else model by model, naming the
// models that do not take it.
func fieldDescription(vs []variant, models []string) string {
	f := vs[0].field
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(f.Help, "."))
	if b.Len() > 0 {
		b.WriteString(". ")
	}
	switch {
	case f.Media != catalog.MediaNone && f.Kind == catalog.KindURL:
		fmt.Fprintf(&b, "An http(s) URL of %s the service fetches (a local file cannot be sent here). ", f.Media)
	case f.Media != catalog.MediaNone || f.Kind == catalog.KindSubjects:
		b.WriteString("Media: an http(s) URL, a data URI, or a local file path that clapper reads and sends as a data URI. ")
	}
	rules := map[string][]string{}
	var order []string
	for _, v := range vs {
		d := v.field.Describe()
		if _, seen := rules[d]; !seen {
			order = append(order, d)
		}
		rules[d] = append(rules[d], v.model)
	}
	if len(order) == 1 {
		fmt.Fprintf(&b, "Rules: %s.", order[0])
	} else {
		b.WriteString("Rules by model:")
		for _, d := range order {
			fmt.Fprintf(&b, " %s: %s.", strings.Join(rules[d], ", "), d)
		}
	}
	var not []string
	for _, m := range models {
		if !containsVariant(vs, m) {
			not = append(not, m)
		}
	}
	if len(not) > 0 {
		fmt.Fprintf(&b, " Not taken by %s.", strings.Join(not, ", "))
	}
	return b.String()
}

func allOf(vs []variant, pred func(catalog.Field) bool) bool {
	for _, v := range vs {
		if !pred(v.field) {
			return false
		}
	}
	return true
}

func anyOf(vs []variant, pred func(catalog.Field) bool) bool {
	for _, v := range vs {
		if pred(v.field) {
			return true
		}
	}
	return false
}

func containsVariant(vs []variant, model string) bool {
	for _, v := range vs {
		if v.model == model {
			return true
		}
	}
	return false
}

func containsAny(list []any, v any) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
