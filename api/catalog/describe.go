package catalog

import "clapper/api"

// FieldRules is one field's rules as `clapper models --json` and the MCP
// server's describe_operation give them; a user's catalog file is written
// in the same form (see overlay.go).
type FieldRules struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	Media      string   `json:"media,omitempty"`
	Required   bool     `json:"required,omitempty"`
	Default    any      `json:"default,omitempty"`
	Options    []string `json:"options,omitempty"`
	AnyRatio   bool     `json:"any_ratio,omitempty"`
	OpenChoice bool     `json:"open_choice,omitempty"`
	// NumericString: a string holding a number is read as the number.
	NumericString bool     `json:"numeric_string,omitempty"`
	Min           *float64 `json:"min,omitempty"`
	Max           *float64 `json:"max,omitempty"`
	MinItems      int      `json:"min_items,omitempty"`
	MaxItems      int      `json:"max_items,omitempty"`
	MinChars      int      `json:"min_chars,omitempty"`
	MaxChars      int      `json:"max_chars,omitempty"`
	MinSeconds    float64  `json:"min_seconds,omitempty"`
	MaxSeconds    float64  `json:"max_seconds,omitempty"`
	Unit          string   `json:"unit,omitempty"`
	Help          string   `json:"help"`
	// Source is the layer the rule comes from: spec, service or user.
	Source Layer `json:"source"`
	// Cite is where a rule beyond the spec's tables was read.
	Cite string `json:"cite,omitempty"`
}

// ModelRules are the fields one model takes.
type ModelRules struct {
	Model string `json:"model,omitempty"`
	// Source is the layer that introduced the model.
	Source Layer `json:"source"`
	// Cite is where that layer read the model.
	Cite   string       `json:"cite,omitempty"`
	Fields []FieldRules `json:"fields"`
}

// OperationRules are an operation's rules, model by model.
type OperationRules struct {
	Operation string       `json:"operation"`
	Path      string       `json:"path"`
	Title     string       `json:"title"`
	Models    []ModelRules `json:"models"`
}

// Describe gives the rules of an operation's models: all of them, or only
// the named ones.
func Describe(op api.Operation, only ...string) (OperationRules, error) {
	info := Info(op)
	out := OperationRules{Operation: string(op), Path: op.Path(), Title: info.Title}
	models := modelsOrNone(op)
	if len(only) > 0 {
		models = only
	}
	for _, m := range models {
		spec, err := Lookup(op, m)
		if err != nil {
			return OperationRules{}, err
		}
		mr := ModelRules{Model: m, Source: spec.Source, Cite: spec.Cite}
		for _, f := range spec.Fields {
			mr.Fields = append(mr.Fields, f.Rules())
		}
		out.Models = append(out.Models, mr)
	}
	return out, nil
}

// Rules is the field's rules as data.
func (f Field) Rules() FieldRules {
	fr := FieldRules{Name: f.Name, Kind: f.Kind.String(), Media: f.Media.String(), Required: f.Required,
		Default: f.Default, Options: f.Options, AnyRatio: f.AnyRatio, OpenChoice: f.OpenChoice, NumericString: f.NumericString, MinItems: f.MinItems,
		MaxItems: f.MaxItems, MinChars: f.MinChars, MaxChars: f.MaxChars, MinSeconds: f.MinSeconds,
		MaxSeconds: f.MaxSeconds, Unit: f.Unit, Help: f.Help, Source: f.Source, Cite: f.Cite}
	if f.Range != nil {
		lo := f.Range.Min
		fr.Min = &lo
		if f.Range.HasMax {
			hi := f.Range.Max
			fr.Max = &hi
		}
	}
	return fr
}
