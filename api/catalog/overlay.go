package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"

	"clapper/api"
)

// An overlay is one layer above the spec's tables: per operation, the
// models it adds or changes, each with the fields it adds, changes or
// removes. It is written in the form `clapper models --json` prints, so an
// export edited by hand is a valid layer; keys a field entry leaves out keep
// the value below.
type overlay struct {
	layer Layer
	ops   map[api.Operation][]*modelPatch
	// byModel indexes ops by model, so a lookup costs the same however
	// many models the layer holds.
	byModel map[api.Operation]map[string][]*modelPatch
}

// add appends a model's patch to the layer.
func (o *overlay) add(op api.Operation, mp *modelPatch) {
	o.ops[op] = append(o.ops[op], mp)
	if o.byModel == nil {
		o.byModel = map[api.Operation]map[string][]*modelPatch{}
	}
	if o.byModel[op] == nil {
		o.byModel[op] = map[string][]*modelPatch{}
	}
	o.byModel[op][mp.model] = append(o.byModel[op][mp.model], mp)
}

// patches are the layer's patches of one model, in order.
func (o *overlay) patches(op api.Operation, model string) []*modelPatch {
	return o.byModel[op][model]
}

type modelPatch struct {
	model  string
	like   string // an added model's starting point
	fields []fieldPatch
	// cite is where the layer read the model: an added model's fields
	// carry it, and the entry's fields unless they cite their own.
	cite string
}

// fieldPatch holds the keys one field entry sets; nil means "keep".
type fieldPatch struct {
	name                   string
	remove                 bool
	kind                   *Kind
	media                  *Media
	required, anyRatio     *bool
	openChoice, numericStr *bool
	def                    any
	hasDef                 bool
	options                []string
	min, max               *float64
	minItems, maxItems     *int
	minChars, maxChars     *int
	minSeconds, maxSeconds *float64
	unit, help, cite       *string
}

// apply changes the spec as the entry says, marking what it touched with
// the layer.
func (mp *modelPatch) apply(s *Spec, layer Layer) {
	for _, fp := range mp.fields {
		i := slices.IndexFunc(s.Fields, func(f Field) bool { return f.Name == fp.name })
		if fp.remove {
			if i >= 0 {
				s.Fields = slices.Delete(s.Fields, i, i+1)
			}
			continue
		}
		if i < 0 {
			s.Fields = append(s.Fields, Field{Name: fp.name})
			i = len(s.Fields) - 1
		}
		fp.applyTo(&s.Fields[i])
		s.Fields[i].Source = layer
	}
}

func (fp *fieldPatch) applyTo(f *Field) {
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setF := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	if fp.kind != nil {
		f.Kind = *fp.kind
	}
	if fp.media != nil {
		f.Media = *fp.media
	}
	if fp.required != nil {
		f.Required = *fp.required
	}
	if fp.anyRatio != nil {
		f.AnyRatio = *fp.anyRatio
	}
	if fp.openChoice != nil {
		f.OpenChoice = *fp.openChoice
	}
	if fp.numericStr != nil {
		f.NumericString = *fp.numericStr
	}
	if fp.options != nil {
		f.Options = fp.options
	}
	if fp.min != nil || fp.max != nil {
		r := Range{}
		if f.Range != nil {
			r = *f.Range
		}
		setF(&r.Min, fp.min)
		if fp.max != nil {
			r.Max, r.HasMax = *fp.max, true
		}
		f.Range = &r
	}
	set(&f.MinItems, fp.minItems)
	set(&f.MaxItems, fp.maxItems)
	set(&f.MinChars, fp.minChars)
	set(&f.MaxChars, fp.maxChars)
	setF(&f.MinSeconds, fp.minSeconds)
	setF(&f.MaxSeconds, fp.maxSeconds)
	if fp.unit != nil {
		f.Unit = *fp.unit
	}
	if fp.help != nil {
		f.Help = *fp.help
	}
	if fp.cite != nil {
		f.Cite = *fp.cite
	}
	if fp.hasDef {
		f.Default = defaultOfKind(f.Kind, fp.def)
	}
}

// defaultOfKind gives a default read from JSON the Go type the tables use.
func defaultOfKind(k Kind, v any) any {
	if n, ok := v.(float64); ok && k == KindInt && n == math.Trunc(n) {
		return int(n)
	}
	return v
}

var kindByName, mediaByName = func() (map[string]Kind, map[string]Media) {
	ks := map[string]Kind{}
	for k, n := range kindNames {
		ks[n] = k
	}
	return ks, map[string]Media{"": MediaNone, "image": MediaImage, "video": MediaVideo, "audio": MediaAudio}
}()

// fieldKeys are the keys a field entry may carry: those `clapper models
// --json` prints (source is read and ignored: a layer marks its own rules;
// cite says where the layer read the rule) plus remove.
var fieldKeys = []string{"name", "kind", "media", "required", "default", "options", "any_ratio", "open_choice", "numeric_string", "min", "max",
	"min_items", "max_items", "min_chars", "max_chars", "min_seconds", "max_seconds", "unit", "help", "cite", "source", "remove"}

var modelName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// layerFile is the file's outer shape; path, title and source are printed
// by the export and ignored when read back.
type layerFile []struct {
	Operation string `json:"operation"`
	Path      string `json:"path"`
	Title     string `json:"title"`
	Models    []struct {
		Model  string                       `json:"model"`
		Like   string                       `json:"like"`
		Source string                       `json:"source"`
		Cite   string                       `json:"cite"`
		Fields []map[string]json.RawMessage `json:"fields"`
	} `json:"models"`
}

func mustParseLayer(data []byte, name string, layer Layer) *overlay {
	o, err := parseLayer(data, name, layer, nil)
	if err != nil {
		panic(err)
	}
	return o
}

// where is the place in the file a decoding error points at, as editors
// count: ":3:14" (line 3, column 14).
func where(data []byte, err error, read int64) string {
	offset := read
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		offset = se.Offset
	case errors.As(err, &te):
		offset = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		offset = int64(len(data))
	default:
		// A field the form does not have: where its name first stands.
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if i := bytes.Index(data, []byte(name)); i >= 0 {
				offset = int64(i) + 1
			}
		}
	}
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := max(len(before)-bytes.LastIndexByte(before, '\n')-1, 1)
	return fmt.Sprintf(":%d:%d", line, col)
}

// parseLayer reads and checks a layer on top of the layers below it. Every
// error names the file and the entry: "catalog.json: text2video model
// svcq5: field duration: min 10 is above max 2".
func parseLayer(data []byte, name string, layer Layer, below []*overlay) (*overlay, error) {
	var lf layerFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&lf); err != nil {
		return nil, fmt.Errorf("%s%s: not a catalog in the form of clapper models --json: %v", name, where(data, err, dec.InputOffset()), err)
	}
	o := &overlay{layer: layer, ops: map[api.Operation][]*modelPatch{}}
	trial := append(slices.Clone(below), o)
	// Each operation's models so far and the rules resolved so far: a
	// file of thousands of models, or a like chain of thousands, costs
	// time in proportion to its size.
	known := map[api.Operation][]string{}
	isKnown := map[api.Operation]map[string]bool{}
	resolvers := map[api.Operation]*resolver{}
	for i, e := range lf {
		op, err := api.ParseOperation(e.Operation)
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d: operation: %v", name, i+1, err)
		}
		if _, seen := isKnown[op]; !seen {
			known[op] = modelsIn(trial, op)
			isKnown[op] = map[string]bool{}
			for _, m := range known[op] {
				isKnown[op][m] = true
			}
			resolvers[op] = newResolver(trial, op)
		}
		r := resolvers[op]
		for _, m := range e.Models {
			where := fmt.Sprintf("%s: %s model %q", name, op, m.Model)
			if operationModels[op] == nil {
				where = fmt.Sprintf("%s: %s", name, op)
				if m.Model != "" {
					return nil, fmt.Errorf("%s: has no model field; leave model out", where)
				}
			} else if !modelName.MatchString(m.Model) {
				return nil, fmt.Errorf("%s: a model id is 1-64 letters, digits, '.', '-' or '_'", where)
			}
			cite := m.Cite
			if cite == "" && layer == LayerService {
				cite = citeBeyond // the entries written before the notes' section of 2026
			}
			mp := &modelPatch{model: m.Model, like: m.Like, cite: cite}
			if mp.like != "" && !isKnown[op][mp.like] {
				return nil, fmt.Errorf("%s: like %q is not a model of %s; choose one of %s", where, mp.like, op, strings.Join(known[op], ", "))
			}
			start := m.Model
			if !isKnown[op][m.Model] && known[op] != nil {
				if start = mp.like; start == "" {
					start = operationModels[op][0]
				}
			}
			r.models = known[op]
			prev := r.spec(len(trial), start)
			for _, raw := range m.Fields {
				fp, err := parseFieldPatch(raw)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", where, err)
				}
				if _, exists := prev.Field(fp.name); !exists && !fp.remove && fp.kind == nil {
					return nil, fmt.Errorf("%s: field %s is new: give its kind (%s)", where, fp.name, strings.Join(kindNameList(), ", "))
				}
				if fp.cite == nil && cite != "" {
					fp.cite = &cite
				}
				mp.fields = append(mp.fields, fp)
			}
			o.add(op, mp)
			r.changed(len(trial), m.Model)
			if known[op] != nil && !isKnown[op][m.Model] {
				known[op] = append(known[op], m.Model) // earlier specs see only their own length of it
				isKnown[op][m.Model] = true
			}
			r.models = known[op]
			s := r.spec(len(trial), m.Model)
			for _, fp := range mp.fields {
				if f, ok := s.Field(fp.name); ok {
					if err := checkRule(s, f); err != nil {
						return nil, fmt.Errorf("%s: field %s: %v", where, fp.name, err)
					}
				}
			}
		}
	}
	return o, nil
}

func parseFieldPatch(raw map[string]json.RawMessage) (fieldPatch, error) {
	var fp fieldPatch
	for k := range raw {
		if !slices.Contains(fieldKeys, k) {
			return fp, fmt.Errorf("field entry has unknown key %q; known keys: %s", k, strings.Join(fieldKeys, ", "))
		}
	}
	if err := json.Unmarshal(raw["name"], &fp.name); err != nil || strings.TrimSpace(fp.name) == "" {
		return fp, fmt.Errorf("a field entry needs a name")
	}
	bad := func(key string, err error) error { return fmt.Errorf("field %s: %s: %v", fp.name, key, err) }
	get := func(key string, dst any) error {
		r, ok := raw[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(r, dst); err != nil {
			return bad(key, err)
		}
		return nil
	}
	var kind, media *string
	if err := firstErr(get("remove", &fp.remove), get("kind", &kind), get("media", &media), get("required", &fp.required),
		get("any_ratio", &fp.anyRatio), get("open_choice", &fp.openChoice), get("numeric_string", &fp.numericStr), get("options", &fp.options), get("min", &fp.min), get("max", &fp.max),
		get("min_items", &fp.minItems), get("max_items", &fp.maxItems), get("min_chars", &fp.minChars),
		get("max_chars", &fp.maxChars), get("min_seconds", &fp.minSeconds), get("max_seconds", &fp.maxSeconds),
		get("unit", &fp.unit), get("help", &fp.help), get("cite", &fp.cite)); err != nil {
		return fp, err
	}
	if r, ok := raw["default"]; ok {
		fp.hasDef = true
		if err := json.Unmarshal(r, &fp.def); err != nil {
			return fp, bad("default", err)
		}
	}
	if kind != nil {
		k, ok := kindByName[*kind]
		if !ok {
			return fp, fmt.Errorf("field %s: kind %q is not one of %s", fp.name, *kind, strings.Join(kindNameList(), ", "))
		}
		fp.kind = &k
	}
	if media != nil {
		m, ok := mediaByName[*media]
		if !ok {
			return fp, fmt.Errorf("field %s: media %q is not image, video or audio", fp.name, *media)
		}
		fp.media = &m
	}
	for _, n := range []*int{fp.minItems, fp.maxItems, fp.minChars, fp.maxChars} {
		if n != nil && *n < 0 {
			return fp, fmt.Errorf("field %s: counts and lengths cannot be negative", fp.name)
		}
	}
	return fp, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func kindNameList() []string {
	var out []string
	for k := Kind(0); k <= KindKeyFrames; k++ {
		out = append(out, k.String())
	}
	return out
}

// checkRule says what makes a field's rules contradict themselves: a field
// with no kind, bounds the wrong way round, a choice with nothing to choose,
// or a default its own rules refuse.
func checkRule(s *Spec, f Field) error {
	switch {
	case f.Range != nil && f.Range.HasMax && f.Range.Min > f.Range.Max:
		return fmt.Errorf("min %s is above max %s", trimFloat(f.Range.Min), trimFloat(f.Range.Max))
	case f.MaxItems > 0 && f.MinItems > f.MaxItems:
		return fmt.Errorf("min_items %d is above max_items %d", f.MinItems, f.MaxItems)
	case f.MaxChars > 0 && f.MinChars > f.MaxChars:
		return fmt.Errorf("min_chars %d is above max_chars %d", f.MinChars, f.MaxChars)
	case f.Kind == KindEnum && len(f.Options) == 0 && !f.AnyRatio:
		return fmt.Errorf("a choice needs options")
	case (f.Kind == KindMedia || f.Kind == KindMediaList) && f.Media == MediaNone:
		return fmt.Errorf("a %s field needs media: image, video or audio", f.Kind)
	}
	if f.Default != nil {
		if errs := s.checkField(f, f.Default); len(errs) > 0 {
			return fmt.Errorf("default %s: %s", FormatValue(f.Default), errs[0].Message)
		}
	}
	return nil
}
