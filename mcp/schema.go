package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
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

// unlisted are fields an agent has no use for, left out of the schemas
// (each would be repeated in most of nineteen): the server follows its
// tasks itself, so the service's callbacks, the caller's pass-through
// value and its metadata serve nobody. A request that sends them is still judged and sent
// as any other.
var unlisted = []string{"callback_url", "payload", "meta_data"}

// operationSchema is the input schema of create_<op>, generated from the
// catalog: every field any model takes (but the unlisted), with its type,
// the union of the models' options and ranges, and a description that
// states each model's rules where they differ. The schema tells an agent
// what to send; the catalog's Validate judges what it sent, naming the
// field.
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
		if slices.Contains(unlisted, name) {
			continue
		}
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
		s.Properties["model"] = &jsonschema.Schema{Type: "string", Enum: enum}
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
	// Options: the union, unless some model takes any W:H ratio or any
	// name (the description lists the known ones).
	if f.Kind == catalog.KindEnum && !anyOf(vs, func(f catalog.Field) bool { return f.AnyRatio || f.OpenChoice }) {
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
	if allOf(vs, func(f catalog.Field) bool { return f.Range != nil && !anyInteger(f) }) {
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
	// A switch is off unless set: its default says nothing.
	if d := f.Default; d != nil && d != false && allOf(vs, func(g catalog.Field) bool { return reflect.DeepEqual(g.Default, d) }) {
		if b, err := json.Marshal(d); err == nil {
			s.Default = b
		}
	}
	s.Description = fieldDescription(vs, models, s)
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
		// The help names the keys: each a {name, images, videos,
		// voice_id, server_id}.
		return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "object", Required: []string{"name"}}}
	case catalog.KindKeyFrames:
		lo, hi := float64(catalog.KeyFrameMinSeconds), float64(catalog.KeyFrameMaxSeconds)
		return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "object", Required: []string{"key_image"},
			Properties: map[string]*jsonschema.Schema{"key_image": str(), "prompt": str(), "duration": {Type: "integer", Minimum: &lo, Maximum: &hi}}}}
	case catalog.KindTimingPrompts:
		num := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "number", Minimum: new(float64)} }
		return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "object", Required: []string{"from", "to", "prompt"},
			Properties: map[string]*jsonschema.Schema{"from": num(), "to": num(), "prompt": str()}}}
	}
	return str()
}

// fieldDescription is the field's help and its rules in few words: what
// every model that takes it agrees on once, what differs model by model
// (the largest group as "others" when every model takes it), and which
// models do not take it. A rule the schema states for every model (its
// default, options, range, counts or length) is not said again.
func fieldDescription(vs []variant, models []string, stated *jsonschema.Schema) string {
	f := vs[0].field
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(f.Help, "."))
	if f.Kind == catalog.KindSubjects {
		b.WriteString("; each {name, images, videos, voice_id, server_id}")
	}
	if f.Media != catalog.MediaNone && f.Kind == catalog.KindURL {
		b.WriteString("; a URL, no local file")
	}
	b.WriteString(".")
	takenByAll := len(vs) == len(modelsOr(models))
	parts := make([][]string, len(vs))
	for i, v := range vs {
		for _, p := range ruleParts(v.field) {
			if !statedBySchema(p.kind, v.field, stated) && !(p.kind == partRequired && takenByAll && allOf(vs, func(f catalog.Field) bool { return f.Required })) {
				parts[i] = append(parts[i], p.text)
			}
		}
	}
	// Said once: what every model that takes the field agrees on.
	var common []string
	for _, p := range parts[0] {
		if everyHas(parts, p) {
			common = append(common, p)
		}
	}
	if line := defaultsWithExceptions(vs, models, parts, common); line != "" {
		common = append(common, line)
	}
	if len(common) > 0 {
		b.WriteString(" " + strings.Join(common, "; ") + ".")
	}
	groups, order, plain := map[string][]string{}, []string(nil), 0
	for i, v := range vs {
		rest := strings.Join(without(parts[i], common), "; ")
		if rest == "" {
			plain++ // takes what the schema says
			continue
		}
		if _, seen := groups[rest]; !seen {
			order = append(order, rest)
		}
		groups[rest] = append(groups[rest], v.model)
	}
	others := ""
	// "others" only where it names every model left: none takes the
	// schema's plain rules, and every model takes the field.
	if takenByAll && plain == 0 && len(order) > 1 {
		for _, r := range order {
			if others == "" || len(groups[r]) > len(groups[others]) {
				others = r
			}
		}
	}
	var said []string
	for _, r := range order {
		if r != others {
			said = append(said, modelList(groups[r], models)+": "+r)
		}
	}
	if others != "" {
		said = append(said, "others: "+others)
	}
	if len(said) > 0 {
		b.WriteString(" " + strings.Join(said, " | ") + ".")
	}
	var not, only []string
	for _, m := range models {
		if containsVariant(vs, m) {
			only = append(only, m)
		} else {
			not = append(not, m)
		}
	}
	switch {
	case len(not) == 0:
	case len(only) < len(not):
		fmt.Fprintf(&b, " Only %s.", modelList(only, models))
	default:
		fmt.Fprintf(&b, " Not %s.", modelList(not, models))
	}
	return b.String()
}

// defaultsWithExceptions says the models' differing defaults once, the
// most common first and the others by model: "default 5 (svc2.0: 4)",
// and takes them out of parts. It says nothing (and leaves parts) unless
// every model states a default or takes only one value (which is its
// default), so "default D" never stands for a model without one.
func defaultsWithExceptions(vs []variant, models []string, parts [][]string, common []string) string {
	defs := make([]string, len(vs))
	count, order := map[string]int{}, []string(nil)
	for i, v := range vs {
		for _, p := range parts[i] {
			if d, ok := strings.CutPrefix(p, "default "); ok && !slices.Contains(common, p) {
				defs[i] = d
			}
		}
		if defs[i] == "" {
			if f := v.field; f.Default == nil || !onlyValue(f, catalog.FormatValue(f.Default)) {
				return ""
			}
			continue
		}
		if count[defs[i]] == 0 {
			order = append(order, defs[i])
		}
		count[defs[i]]++
	}
	if len(order) < 2 {
		return ""
	}
	most := order[0]
	for _, d := range order {
		if count[d] > count[most] {
			most = d
		}
	}
	byValue := map[string][]string{}
	for i, v := range vs {
		if d := defs[i]; d != "" && d != most {
			byValue[d] = append(byValue[d], v.model)
		}
		if defs[i] != "" {
			parts[i] = without(parts[i], []string{"default " + defs[i]})
		}
	}
	var exceptions []string
	for _, d := range order {
		if d != most {
			exceptions = append(exceptions, modelList(byValue[d], models)+": "+d)
		}
	}
	return "default " + most + " (" + strings.Join(exceptions, "; ") + ")"
}

// modelList names models in few words: a family the list holds whole
// (every model of the operation whose id starts with svcq3) is "svcq3*",
// as a glob reads.
func modelList(list, all []string) string {
	var out []string
	done := map[string]bool{}
	for _, m := range list {
		if done[m] {
			continue
		}
		fam, _, _ := strings.Cut(m, "-")
		var members []string
		for _, x := range all {
			if strings.HasPrefix(x, fam) {
				members = append(members, x)
			}
		}
		if len(members) > 1 && allIn(members, list) {
			out = append(out, fam+"*")
			for _, x := range members {
				done[x] = true
			}
			continue
		}
		out = append(out, m)
		done[m] = true
	}
	return strings.Join(out, ", ")
}

func allIn(xs, list []string) bool {
	for _, x := range xs {
		if !slices.Contains(list, x) {
			return false
		}
	}
	return true
}

func modelsOr(models []string) []string {
	if models == nil {
		return []string{""}
	}
	return models
}

func everyHas(parts [][]string, p string) bool {
	for _, ps := range parts {
		if !slices.Contains(ps, p) {
			return false
		}
	}
	return true
}

func without(list, drop []string) []string {
	var out []string
	for _, x := range list {
		if !slices.Contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

// A rulePart is one rule of a field in few words, by kind.
type rulePart struct{ kind, text string }

const (
	partRequired = "required"
	partDefault  = "default"
	partOptions  = "options"
	partRange    = "range"
	partCount    = "count"
	partChars    = "chars"
	partSeconds  = "seconds"
	partMedia    = "media"
)

// ruleParts are every rule of one model's field, as catalog.Field's
// Describe says them, in fewer words: the JSON type is the schema's.
func ruleParts(f catalog.Field) []rulePart {
	var ps []rulePart
	add := func(kind, format string, a ...any) { ps = append(ps, rulePart{kind, fmt.Sprintf(format, a...)}) }
	if f.Required {
		add(partRequired, "required")
	}
	if f.Default != nil && f.Default != false && !onlyValue(f, catalog.FormatValue(f.Default)) {
		add(partDefault, "default %s", catalog.FormatValue(f.Default))
	}
	switch {
	case len(f.Options) == 1:
		add(partOptions, "only %s", f.Options[0])
	case len(f.Options) > 1:
		o := strings.Join(f.Options, ", ")
		if f.AnyRatio {
			o += " or any W:H"
		}
		if f.OpenChoice {
			o += " or another name"
		}
		if f.Unit == "seconds" {
			o += " s" // some values of a range: svc2.0's 4 or 8 s
		}
		add(partOptions, "%s", o)
	}
	if r := f.Range; r != nil && !anyInteger(f) && len(f.Options) == 0 {
		unit := ""
		if f.Unit == "seconds" {
			unit = " s"
		} else if f.Unit != "" {
			unit = " " + f.Unit
		}
		switch {
		case r.HasMax && r.Min == r.Max:
			add(partRange, "only %s%s", num(r.Min), unit)
		case r.HasMax:
			add(partRange, "%s to %s%s", num(r.Min), num(r.Max), unit)
		default:
			add(partRange, "at least %s%s", num(r.Min), unit)
		}
	}
	noun := "items"
	if f.Media != catalog.MediaNone {
		noun = f.Media.String() + "s"
		if f.Media == catalog.MediaAudio {
			noun = "audio files"
		}
	}
	switch {
	case f.MinItems == 0 && f.MaxItems == 0:
		if f.Kind == catalog.KindMediaList {
			add(partMedia, "%s", noun)
		}
	case f.MaxItems == 0:
		add(partCount, "at least %d %s", f.MinItems, noun)
	case f.MinItems == f.MaxItems:
		add(partCount, "exactly %d %s", f.MinItems, noun)
	case f.MinItems == 0:
		add(partCount, "at most %d %s", f.MaxItems, noun)
	default:
		add(partCount, "%d to %d %s", f.MinItems, f.MaxItems, noun)
	}
	switch {
	case f.MinChars > 0 && f.MaxChars > 0:
		add(partChars, "%d to %d characters", f.MinChars, f.MaxChars)
	case f.MinChars > 0:
		add(partChars, "at least %d characters", f.MinChars)
	case f.MaxChars > 0:
		add(partChars, "at most %d characters", f.MaxChars)
	}
	switch {
	case f.MinSeconds > 0:
		add(partSeconds, "%s to %s s long", num(f.MinSeconds), num(f.MaxSeconds))
	case f.MaxSeconds > 0:
		add(partSeconds, "at most %s s long", num(f.MaxSeconds))
	}
	return ps
}

// onlyValue reports a field that takes the one value v ("only 1080p",
// "only 5 s"): its default goes without saying.
func onlyValue(f catalog.Field, v string) bool {
	if len(f.Options) == 1 {
		return f.Options[0] == v
	}
	r := f.Range
	return len(f.Options) == 0 && r != nil && r.HasMax && r.Min == r.Max && num(r.Min) == v
}

// anyInteger reports a range that takes every integer JSON carries
// exactly (a seed): the type says as much.
func anyInteger(f catalog.Field) bool {
	r := f.Range
	return r != nil && r.HasMax && r.Min <= -(1<<53-1) && r.Max >= 1<<53-1
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// statedBySchema reports a rule of a model's field that the schema
// already states as it is: the same default, every option of the enum,
// the schema's range, counts or length. A model the description does not
// name for a kind of rule takes what the schema says.
func statedBySchema(kind string, f catalog.Field, s *jsonschema.Schema) bool {
	switch kind {
	case partDefault:
		return s.Default != nil
	case partOptions:
		if s.Enum == nil || f.AnyRatio || len(f.Options) != len(s.Enum) {
			return false
		}
		for _, o := range f.Options {
			if !containsAny(s.Enum, o) {
				return false
			}
		}
		return true
	case partRange:
		r := f.Range
		return s.Minimum != nil && *s.Minimum == r.Min && (s.Maximum == nil) == !r.HasMax && (s.Maximum == nil || *s.Maximum == r.Max)
	case partCount:
		return orZero(s.MinItems) == f.MinItems && orZero(s.MaxItems) == f.MaxItems
	case partChars:
		return f.MinChars == 0 && s.MaxLength != nil && *s.MaxLength == f.MaxChars
	}
	return false
}

func orZero(p *int) int {
	if p == nil {
		return 0
	}
	return *p
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
