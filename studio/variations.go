package studio

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// maxVariations bounds the versions of one request: a set is for choosing
// among versions, and each costs credits.
const maxVariations = 50

// VariationsError lists every version the catalog refuses; none is sent.
type VariationsError struct {
	Op       api.Operation
	Problems []string // "version 2 (duration=99): duration: …"
}

func (e *VariationsError) Error() string {
	return fmt.Sprintf("%s variations not sent: %s\n  %s", e.Op, textutil.Plural(len(e.Problems), "problem"), strings.Join(e.Problems, "\n  "))
}

// SeedVariations makes count versions of a checked request with distinct
// random seeds, labelled seed=N. The operation must take a seed: versions
// without one would not differ.
func SeedVariations(op api.Operation, body map[string]any, count int) ([]SetRequest, error) {
	if count < 2 || count > maxVariations {
		return nil, fmt.Errorf("%d versions: give 2 to %d", count, maxVariations)
	}
	if _, takes := catalog.FieldOf(op, "seed"); !takes {
		return nil, fmt.Errorf("%s has no seed field, so versions of one request would not differ; vary a field instead", op)
	}
	var out []SetRequest
	seen := map[int64]bool{}
	for len(out) < count {
		// Seeds of 31 bits: every model reads them, and 0 means random.
		seed := drawSeed(1<<31-1) + 1
		if seen[seed] {
			continue
		}
		seen[seed] = true
		v := cloneBody(body)
		v["seed"] = json.Number(strconv.FormatInt(seed, 10))
		out = append(out, SetRequest{Line: len(out) + 1, Op: op, Body: v, Label: fmt.Sprintf("seed=%d", seed)})
	}
	return out, nil
}

// drawSeed draws a number in [0, n) for SeedVariations (tests fix it).
var drawSeed = rand.Int64N

// SetValue puts one value, typed from text, into a request's field: the
// way a front end applies field=value (a list field gains an item).
type SetValue func(body map[string]any, field, value string) error

// SplitValues reads the values of field=values as every front end does:
// separated by | when one is given (prompts hold commas), else by commas;
// blanks around each are dropped, and so are empty values.
func SplitValues(list string) []string {
	sep := ","
	if strings.Contains(list, "|") {
		sep = "|"
	}
	var values []string
	for _, v := range strings.Split(list, sep) {
		if v = strings.TrimSpace(v); v != "" {
			values = append(values, v)
		}
	}
	return values
}

// ValueVariations makes one version of a request per value of one field
// (prompts, durations, models), labelled field=value. set types each value
// (nil: typeText's scalar typing). Every version goes through the one
// preparation path (PrepareRequest, cfg's size rule); all broken ones are
// listed in a *VariationsError and none is kept.
func ValueVariations(cfg Config, op api.Operation, body map[string]any, field string, values []string, set SetValue) ([]SetRequest, error) {
	if field == "" {
		return nil, fmt.Errorf("name the field to vary")
	}
	if len(values) < 2 || len(values) > maxVariations {
		return nil, fmt.Errorf("%s: give 2 to %d values, separated by | (or by commas when none holds one)", field, maxVariations)
	}
	if set == nil {
		set = setScalar(op)
	}
	var out []SetRequest
	var problems []string
	for i, value := range values {
		v := cloneBody(body)
		delete(v, field) // the value replaces the field, a list field's items too
		label := field + "=" + value
		if err := set(v, field, value); err != nil {
			return nil, err
		}
		p, err := PrepareRequest(cfg, op, v, ".")
		if err != nil {
			return nil, err
		}
		for _, e := range p.Errors {
			problems = append(problems, fmt.Sprintf("version %d (%s): %s", i+1, textutil.Clip(label, 40), e.Message))
		}
		if p.TooLarge != "" {
			problems = append(problems, fmt.Sprintf("version %d (%s): %s", i+1, textutil.Clip(label, 40), p.TooLarge))
		}
		if p.OK() {
			out = append(out, SetRequest{Line: i + 1, Op: op, Body: p.Body, Label: label})
		}
	}
	if problems != nil {
		return nil, &VariationsError{Op: op, Problems: problems}
	}
	return out, nil
}

// setScalar types a value by its field's kind (a number for a number
// field, true/false for a switch, text otherwise); the catalog's check then
// names the field and what it takes when the value does not fit.
func setScalar(op api.Operation) SetValue {
	return func(body map[string]any, field, value string) error {
		f, known := catalog.FieldOf(op, field)
		if !known {
			return fmt.Errorf("%s: %s has no such field", field, op)
		}
		switch f.Kind {
		case catalog.KindInt, catalog.KindNumber, catalog.KindBool, catalog.KindText, catalog.KindEnum:
			body[field] = typeText(f, value)
			return nil
		}
		return fmt.Errorf("%s: only a field of one value can be varied here (a number, a choice or a text)", field)
	}
}

// typeText converts a typed value by the field's kind. A value that does
// not parse is kept as text, so validation names the field and what it
// takes.
func typeText(f catalog.Field, raw string) any {
	switch f.Kind {
	case catalog.KindInt, catalog.KindNumber:
		t := strings.TrimSpace(raw)
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(n, 10)) // digit for digit: no float rounding
		}
		if n, err := strconv.ParseFloat(t, 64); err == nil {
			return json.Number(strconv.FormatFloat(n, 'f', -1, 64))
		}
	case catalog.KindBool:
		if b, err := strconv.ParseBool(strings.TrimSpace(raw)); err == nil {
			return b
		}
	}
	return raw
}

// VaryFields are the fields of op's model whose values a front end can
// vary one by one (a number, a choice, a text), in the catalog's order.
func VaryFields(op api.Operation, model string) []string {
	spec, err := catalog.Lookup(op, model)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range spec.Fields {
		switch f.Kind {
		case catalog.KindInt, catalog.KindNumber, catalog.KindBool, catalog.KindText, catalog.KindEnum:
			out = append(out, f.Name)
		}
	}
	return out
}

// cloneBody copies a request's top level: a version changes one field.
func cloneBody(body map[string]any) map[string]any {
	out := make(map[string]any, len(body)+1)
	for k, v := range body {
		out[k] = v
	}
	return out
}
