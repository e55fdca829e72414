package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"clapper/api"
	"clapper/internal/textutil"
)

// body is a request as a JSON object. Numbers are json.Number (decoded
// with UseNumber) or Go numbers; null counts as unset.
type body map[string]any

// Validate checks a request body against every rule of the operation and
// the model it names. It returns nil when the request may be sent.
func Validate(op api.Operation, req map[string]any) Errors {
	model := ""
	if sharedModels(op) != nil {
		m, present := req["model"]
		if !present || m == nil || m == "" {
			return Errors{{Field: "model", Reason: api.ReasonFieldLacking,
				Message: fmt.Sprintf("model: required; %s takes %s", op, strings.Join(sharedModels(op), ", "))}}
		}
		s, ok := m.(string)
		if !ok {
			return Errors{{Field: "model", Reason: api.ReasonFieldInvalid,
				Message: fmt.Sprintf("model: must be one of %s, got %s", strings.Join(sharedModels(op), ", "), describe(m))}}
		}
		if !contains(sharedModels(op), s) {
			return Errors{{Field: "model", Reason: api.ReasonFieldInvalid, Message: "model: " + unknownModel(op, s)}}
		}
		model = s
	}
	spec, err := shared(op, model)
	if err != nil {
		return Errors{{Field: "operation", Reason: api.ReasonBadRequest, Message: err.Error()}}
	}
	return spec.Validate(req)
}

// Validate checks a body against this spec.
func (s *Spec) Validate(req map[string]any) Errors {
	b := s.normalize(req)
	var errs Errors
	known := map[string]bool{}
	for _, f := range s.Fields {
		known[f.Name] = true
		v, set := b.get(f.Name)
		if str, ok := v.(string); ok && f.Kind == KindText && strings.TrimSpace(str) == "" {
			set = false // a prompt of spaces asks for nothing
		}
		if l, ok := b[f.Name].([]any); ok && len(l) == 0 && !f.Kind.IsList() {
			v, set = l, true // empty means unset only where a list belongs
		}
		if !set {
			if f.Required {
				errs = append(errs, FieldError{f.Name, api.ReasonFieldLacking, f.Name + ": required (" + f.Help + ")"})
			}
			continue
		}
		errs = append(errs, s.checkField(f, v)...)
	}
	var unknown []string
	for k := range b {
		if _, set := b.get(k); set && !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		if e := s.unwanted(k, b[k]); e.Field != "" {
			errs = append(errs, e)
		}
	}
	for _, r := range s.rules {
		errs = append(errs, r(s, b)...)
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// normalize reads a single string given for a list of media as a list of
// one: the spec notes "a single string appears in some forms" of images, and
// clients of the real service send it.
func (s *Spec) normalize(req map[string]any) body {
	var out body
	for _, f := range s.Fields {
		str, ok := req[f.Name].(string)
		if !ok || str == "" || (f.Kind != KindMediaList && f.Kind != KindStringList) {
			continue
		}
		if out == nil {
			out = maps.Clone(req)
		}
		out[f.Name] = []any{str}
	}
	if out == nil {
		return body(req)
	}
	return out
}

// unwanted explains a field this model does not take, naming the models of
// the operation that do.
func (s *Spec) unwanted(name string, v any) FieldError {
	// A flag left at false asks for nothing this model lacks: "svcq4-preview
	// shows no bgm" refuses bgm true, not a client that sends false to every
	// model. A value for a feature the model lacks (movement_amplitude, even
	// its default auto, on svcq2) is refused, as the spec's "svcq1 only" says.
	if f, ok := FieldOf(s.Operation, name); ok && f.Kind == KindBool && v == false {
		return FieldError{}
	}
	msg := fmt.Sprintf("%s: not a field of %s", textutil.Clip(name, 60), s.Operation)
	if near := Suggest(s.Operation, name); near != "" {
		msg += "; did you mean " + near + "?"
	}
	if others := modelsTaking(s.Operation, name); len(others) > 0 {
		msg = fmt.Sprintf("%s: %s does not take this field; only %s do", name, s.Model, strings.Join(others, ", "))
	}
	return FieldError{name, api.ReasonFieldUnwanted, msg}
}

// FieldOf returns the named field as the first model of the operation that
// takes it defines it: its kind and media are the same for every model.
// Its options, option help and range are the catalog's own: read them,
// never change them (Lookup gives a Spec to change).
func FieldOf(op api.Operation, name string) (Field, bool) {
	for _, m := range modelsOrNone(op) {
		s, err := shared(op, m)
		if err != nil {
			return Field{}, false
		}
		if f, ok := s.Field(name); ok {
			return f, true
		}
	}
	return Field{}, false
}

func modelsTaking(op api.Operation, name string) []string {
	var out []string
	for _, m := range sharedModels(op) {
		s, _ := shared(op, m)
		if _, ok := s.Field(name); ok {
			out = append(out, m)
		}
	}
	return out
}

func modelsOrNone(op api.Operation) []string {
	if ms := sharedModels(op); ms != nil {
		return ms
	}
	return noModel
}

// noModel is the one "model" of an operation without a model field.
var noModel = []string{""}

func (s *Spec) checkField(f Field, v any) []FieldError {
	invalid := func(format string, args ...any) []FieldError {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, f.Name + ": " + fmt.Sprintf(format, args...)}}
	}
	switch f.Kind {
	case KindText, KindJSONText, KindColor, KindURL, KindVoiceID, KindMedia:
		str, ok := v.(string)
		if !ok {
			return invalid("must be a string, got %s", describe(v))
		}
		return s.checkString(f, str)
	case KindEnum:
		str, ok := v.(string)
		if !ok {
			return invalid("must be one of %s, got %s", strings.Join(f.Options, ", "), describe(v))
		}
		return s.checkEnum(f, str)
	case KindBool:
		if _, ok := v.(bool); !ok {
			return invalid("must be true or false, got %s", describe(v))
		}
	case KindInt, KindNumber:
		want := "a number"
		if f.Kind == KindInt {
			want = "a whole number"
		}
		if x, ok := NumericString(f, v); ok {
			v = x
		}
		n, ok := number(v)
		if _, isNum := v.(json.Number); isNum && !ok {
			return invalid("%s is too large to be %s", describe(v), want)
		}
		if !ok {
			return invalid("must be %s, got %s", want, describe(v))
		}
		if f.Kind == KindInt && n != math.Trunc(n) {
			return invalid("must be a whole number, got %s", trimFloat(n))
		}
		if len(f.Options) > 0 && !contains(f.Options, trimFloat(n)) {
			// Some values of a range only (svc2.0's 4 or 8 s).
			return invalid("%s accepts %s%s, got %s", s.subject(), orList(f.Options), unitText(f), trimFloat(n))
		}
		return s.checkRange(f, n)
	case KindMediaList, KindStringList:
		items, ok := v.([]any)
		if !ok {
			return invalid("must be a list of strings, got %s", describe(v))
		}
		if e := s.checkCount(f, len(items)); e != nil {
			return []FieldError{*e}
		}
		var errs []FieldError
		for i, it := range items {
			str, ok := it.(string)
			if !ok {
				errs = append(errs, FieldError{f.Name, api.ReasonFieldInvalid, fmt.Sprintf("%s[%d]: must be a string, got %s", f.Name, i, describe(it))})
				continue
			}
			if f.Kind == KindStringList {
				if strings.TrimSpace(str) == "" {
					errs = append(errs, FieldError{f.Name, api.ReasonFieldLacking, fmt.Sprintf("%s[%d]: empty", f.Name, i)})
				}
				continue
			}
			errs = append(errs, checkMedia(f, fmt.Sprintf("%s[%d]", f.Name, i), str)...)
		}
		return errs
	case KindJSONArray:
		if _, ok := v.([]any); !ok {
			return invalid("must be a JSON array, got %s", describe(v))
		}
	case KindSubjects:
		return s.checkSubjects(f, v)
	case KindTimingPrompts:
		return s.checkTimingPrompts(f, v)
	case KindKeyFrames:
		return s.checkKeyFrames(f, v)
	}
	return nil
}

func (s *Spec) checkString(f Field, str string) []FieldError {
	invalid := func(format string, args ...any) []FieldError {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, f.Name + ": " + fmt.Sprintf(format, args...)}}
	}
	if f.MaxChars > 0 {
		if n := utf8.RuneCountInString(str); n > f.MaxChars {
			return invalid("at most %d characters for %s, got %d", f.MaxChars, s.subject(), n)
		}
	}
	if n := utf8.RuneCountInString(str); n < f.MinChars {
		return invalid("at least %d characters for %s, got %d", f.MinChars, s.subject(), n)
	}
	switch f.Kind {
	case KindText:
		if f.Pauses != PausesNone {
			if _, err := SplitPauses(str, f.Pauses); err != nil {
				return invalid("%v", err)
			}
		}
		if f.Name == "prompt_text" && !endsWithPunctuation(str) {
			return invalid("must end with punctuation, as the sample clip's text does")
		}
	case KindJSONText:
		if !json.Valid([]byte(str)) {
			return invalid("must be a JSON document, e.g. {\"Label\":\"...\"}")
		}
	case KindColor:
		if !hexColor.MatchString(str) {
			return invalid("must be a HEX colour like #FFFFFF, got %q", str)
		}
	case KindURL:
		if err := checkURL(str); err != nil {
			return invalid("%v", err)
		}
	case KindVoiceID:
		if f.NewVoice {
			if err := CheckVoiceID(str); err != nil {
				return invalid("%v", err)
			}
		} else if err := checkVoiceRef(str); err != nil {
			return invalid("%v", err)
		}
	case KindMedia:
		return checkMedia(f, f.Name, str)
	}
	return nil
}

// orList reads values as a sentence does: "4 or 8", "1, 2 or 3".
func orList(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

func unitText(f Field) string {
	if f.Unit == "" {
		return ""
	}
	return " " + f.Unit
}

// openName is a name an open choice sends as written: an identifier, as
// the service's template names are.
var openName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

var hexColor = regexp.MustCompile(`^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})$`)

func endsWithPunctuation(s string) bool {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	r, _ := utf8.DecodeLastRuneInString(s)
	return r != utf8.RuneError && unicode.IsPunct(r)
}

func (s *Spec) checkEnum(f Field, v string) []FieldError {
	if contains(f.Options, v) {
		return nil
	}
	if f.OpenChoice {
		if openName.MatchString(v) {
			return nil
		}
		return []FieldError{{f.Name, api.ReasonFieldInvalid, fmt.Sprintf("%s: a name of letters, digits, _ or -, such as %s; got %s", f.Name, strings.Join(f.Options, ", "), describe(v))}}
	}
	if f.AnyRatio {
		if _, err := ParseRatio(v); err == nil {
			return nil
		}
	}
	allowed := strings.Join(f.Options, ", ")
	if len(f.Options) == 1 {
		return []FieldError{{f.Name, api.ReasonFieldInvalid, fmt.Sprintf("%s: %s accepts only %s, got %q", f.Name, s.subject(), allowed, v)}}
	}
	if f.AnyRatio {
		allowed += " or any W:H between 1:4 and 4:1"
	}
	return []FieldError{{f.Name, api.ReasonFieldInvalid, fmt.Sprintf("%s: %s accepts %s, got %q", f.Name, s.subject(), allowed, v)}}
}

func (s *Spec) checkRange(f Field, n float64) []FieldError {
	r := f.Range
	if r == nil || (n >= r.Min && (!r.HasMax || n <= r.Max)) {
		return nil
	}
	return []FieldError{{f.Name, api.ReasonFieldInvalid, fmt.Sprintf("%s: %s accepts %s, got %s", f.Name, s.subject(), f.rangeText(), trimFloat(n))}}
}

func (s *Spec) checkCount(f Field, n int) *FieldError {
	if n >= f.MinItems && (f.MaxItems == 0 || n <= f.MaxItems) {
		return nil
	}
	allowed := f.countText()
	reason := api.ReasonFieldItemCountOutOfRange
	if n == 0 && f.Required {
		reason = api.ReasonFieldLacking
	}
	return &FieldError{f.Name, reason, fmt.Sprintf("%s: %s takes %s, got %d", f.Name, s.subject(), allowed, n)}
}

// get returns a field's value; null and the empty string count as unset,
// as an empty list does (the service treats them as "not given").
func (b body) get(name string) (any, bool) {
	v, ok := b[name]
	if !ok || v == nil {
		return nil, false
	}
	switch x := v.(type) {
	case string:
		return v, x != ""
	case []any:
		return v, len(x) > 0
	}
	return v, true
}

// flag reads a boolean field, falling back to the model's default.
func (s *Spec) flag(b body, name string) bool {
	if v, ok := b.get(name); ok {
		x, _ := v.(bool)
		return x
	}
	if f, ok := s.Field(name); ok {
		d, _ := f.Default.(bool)
		return d
	}
	return false
}

func (b body) count(name string) int {
	v, _ := b.get(name)
	l, _ := v.([]any)
	return len(l)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return x, !math.IsInf(x, 0) && !math.IsNaN(x)
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

// describe names a value in a message as its JSON reads, never in Go terms.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return "an empty string"
		}
		return strconv.Quote(textutil.Clip(x, 60))
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return textutil.Clip(x.String(), 40)
	case []any:
		if len(x) == 0 {
			return "an empty list"
		}
		return "a list"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	if n, ok := number(v); ok {
		return trimFloat(n)
	}
	return jsonText(v)
}

func checkURL(s string) error {
	if IsDataURI(s) {
		return fmt.Errorf("must be an http(s) URL the service can fetch, not a data URI")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an http(s) URL, got %q", textutil.Clip(s, 60))
	}
	return nil
}

var voiceIDPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*[A-Za-z0-9]$`)
