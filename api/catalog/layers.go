package catalog

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"clapper/api"
)

// Layer names where a rule comes from. The catalog is the spec's tables,
// then the service's documented additions (service.json, from the service
// notes), then the user's own catalog file; a later layer adds models and
// fields or changes them.
type Layer string

const (
	LayerSpec    Layer = "spec"
	LayerService Layer = "service"
	LayerUser    Layer = "user"
)

//go:embed service.json
var serviceJSON []byte

// serviceLayer is parsed once, on first use, so that starting clapper
// (its first frame) never waits for it: a broken embedded file is a build
// defect, caught by every test of the package.
var serviceLayer = sync.OnceValue(func() *overlay { return mustParseLayer(serviceJSON, "service.json", LayerService) })

// userLayer is the user's catalog file in force; nil when there is none.
var userLayer atomic.Pointer[overlay]

// UserFileName is the catalog file's name in the config directory.
const UserFileName = "catalog.json"

// LoadUserFile reads the user's catalog file and puts it in force for every
// caller of the package (forms, CLI, MCP and the embedded sandbox). On an
// error the file is not used at all: the built-in layers stay in force and
// the error names the file, the entry and what is wrong with it.
func LoadUserFile(path string) error {
	// Its type is checked before it is opened: opening a FIFO would wait
	// for a writer for ever.
	b, err := api.ReadRegularFile(path, maxUserFile)
	if err != nil {
		return fmt.Errorf("catalog file: %w (a catalog is a regular file of a few kilobytes)", err)
	}
	return LoadUser(b, path)
}

// maxUserFile bounds what is read of a catalog file.
const maxUserFile = 4 << 20

// LoadUser puts a catalog in the form of `clapper models --json` in force
// as the user layer; name labels its errors.
func LoadUser(data []byte, name string) error {
	o, err := parseLayer(data, name, LayerUser, []*overlay{serviceLayer()})
	if err != nil {
		return err
	}
	userLayer.Store(o)
	return nil
}

// ResetUser drops the user layer: only the built-in layers stay in force.
func ResetUser() { userLayer.Store(nil) }

// layers are the overlays in force, earliest first.
func layers() []*overlay { return layersWith(userLayer.Load()) }

func layersWith(user *overlay) []*overlay {
	if user != nil {
		return []*overlay{serviceLayer(), user}
	}
	return []*overlay{serviceLayer()}
}

// tableLayer is the layer of an operation's built-in tables: the spec's,
// or the service's for the operations its later pages added (tables2026.go).
func tableLayer(op api.Operation) Layer {
	if op.IsSpecOperation() {
		return LayerSpec
	}
	return LayerService
}

// Info describes an operation.
func Info(op api.Operation) OperationInfo {
	return OperationInfo{Operation: op, Name: operationNames[op], Title: operationTitles[op], Models: Models(op)}
}

// Models lists the models of an operation: the spec's in its order, then
// those each later layer adds; nil for operations without a model field.
func Models(op api.Operation) []string { return slices.Clone(sharedModels(op)) }

// sharedModels is Models without the copy, for the package's own checks:
// read it, never change it.
func sharedModels(op api.Operation) []string { return modelsFor(userLayer.Load(), op) }

func modelsFor(user *overlay, op api.Operation) []string {
	if ms, ok := specCache.models(user, op); ok {
		return ms
	}
	ms := modelsIn(layersWith(user), op)
	specCache.putModels(user, op, ms)
	return ms
}

func modelsIn(ls []*overlay, op api.Operation) []string {
	models := operationModels[op]
	if models == nil {
		return nil
	}
	out := slices.Clone(models)
	for _, o := range ls {
		for _, mp := range o.ops[op] {
			if !slices.Contains(out, mp.model) {
				out = append(out, mp.model)
			}
		}
	}
	return out
}

// ModelSource is the layer that introduced a model of an operation; ""
// when the operation has no such model.
func ModelSource(op api.Operation, model string) Layer {
	if slices.Contains(operationModels[op], model) || (model == "" && operationModels[op] == nil) {
		return tableLayer(op)
	}
	for _, o := range layers() {
		for _, mp := range o.ops[op] {
			if mp.model == model {
				return o.layer
			}
		}
	}
	return ""
}

// Lookup returns the rules of one model of an operation (model "" for
// operations without a model field), with every layer applied. The Spec is
// the caller's own: changing its fields, options or ranges never reaches
// the catalog.
func Lookup(op api.Operation, model string) (*Spec, error) {
	s, err := shared(op, model)
	if err != nil {
		return nil, err
	}
	return s.clone(), nil
}

// shared is Lookup without the copy, for the package's own checks (Validate,
// Normalize, FieldOf, MapImages), which run for every row of a batch file
// and every key of a form. The Spec is shared by every goroutine: read it,
// never change it.
func shared(op api.Operation, model string) (*Spec, error) {
	user := userLayer.Load()
	if s := specCache.get(user, op, model); s != nil {
		return s, nil
	}
	if _, ok := operationTitles[op]; !ok {
		names := make([]string, 0, len(operationTitles))
		for _, o := range api.Operations() {
			names = append(names, string(o))
		}
		return nil, fmt.Errorf("operation: %q is not one of %s", op, strings.Join(names, ", "))
	}
	models := modelsFor(user, op)
	if models == nil {
		if model != "" {
			return nil, fmt.Errorf("%s has no model field", op)
		}
	} else if !contains(models, model) {
		return nil, fmt.Errorf("model: %s", unknownModel(op, model))
	}
	s := specCache.resolve(user, op, model, models)
	specCache.put(user, op, model, s)
	return s, nil
}

// specCache keeps each model's merged rules, and each operation's models,
// for the user layer in force.
// Entries built from another user layer are never returned: the first
// store after LoadUser or ResetUser starts the table afresh, so a replaced
// catalog file's rules are dropped rather than kept forever.
var specCache specTable

type specTable struct {
	mu    sync.RWMutex
	user  *overlay
	specs map[opModel]*Spec
	// ops holds each operation's models; nil for one without a model field.
	ops map[api.Operation][]string
	// resolvers build each operation's models under the layers in force,
	// each built once however many are like it.
	resolvers map[api.Operation]*resolver
}

type opModel struct {
	op    api.Operation
	model string
}

func (t *specTable) get(user *overlay, op api.Operation, model string) *Spec {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.user != user {
		return nil
	}
	return t.specs[opModel{op, model}]
}

func (t *specTable) models(user *overlay, op api.Operation) ([]string, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.user != user {
		return nil, false
	}
	ms, ok := t.ops[op]
	return ms, ok
}

func (t *specTable) put(user *overlay, op api.Operation, model string, s *Spec) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.startFor(user)
	t.specs[opModel{op, model}] = s
}

func (t *specTable) putModels(user *overlay, op api.Operation, models []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.startFor(user)
	t.ops[op] = models
}

// startFor empties the table when it holds another user layer's rules.
func (t *specTable) startFor(user *overlay) {
	if t.user != user || t.specs == nil {
		t.user, t.specs, t.ops = user, map[opModel]*Spec{}, map[api.Operation][]string{}
		t.resolvers = map[api.Operation]*resolver{}
	}
}

// resolve builds a model under the layers in force with user.
func (t *specTable) resolve(user *overlay, op api.Operation, model string, models []string) *Spec {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.startFor(user)
	r := t.resolvers[op]
	if r == nil {
		r = newResolver(layersWith(user), op)
		t.resolvers[op] = r
	}
	r.models = models
	return r.spec(len(r.ls), model)
}

// clone gives a caller its own Spec, down to each field's options, option
// help, image formats and range.
func (s *Spec) clone() *Spec {
	c := *s
	c.Fields = slices.Clone(s.Fields)
	for i := range c.Fields {
		f := &c.Fields[i]
		f.Options = slices.Clone(f.Options)
		f.OptionHelp = maps.Clone(f.OptionHelp)
		f.ImageFormats = slices.Clone(f.ImageFormats)
		if f.Range != nil {
			r := *f.Range
			f.Range = &r
		}
	}
	c.rules = slices.Clone(s.rules)
	return &c
}

// A model of an operation is built under a list of layers: a spec model
// from its table, an added one from the model it is "like" (the
// operation's first spec model when it names none); then every layer's
// changes to it.

// resolver builds the models of one operation under a list of layers,
// remembering each it built (a like chain of thousands is built once, not
// once per link), for as long as the layers do not change under it.
type resolver struct {
	ls []*overlay
	op api.Operation
	// models are the operation's models, the model field's options.
	models []string
	memo   map[resolved]*Spec
}

// resolved names a model as built under the first n layers.
type resolved struct {
	n     int
	model string
}

func newResolver(ls []*overlay, op api.Operation) *resolver {
	return &resolver{ls: ls, op: op, memo: map[resolved]*Spec{}}
}

// changed forgets what was built under the first n layers once model got
// a new patch there: it, and anything like it, is built anew.
func (r *resolver) changed(n int, model string) {
	if _, built := r.memo[resolved{n, model}]; !built {
		return // nothing built from it yet
	}
	for k := range r.memo {
		if k.n >= n {
			delete(r.memo, k)
		}
	}
}

// spec is model as the first n layers make it: the caller's own copy, but
// for the model field's options, which are the resolver's models list
// (thousands long in a large catalog: copied by Lookup, not here).
func (r *resolver) spec(n int, model string) *Spec {
	key := resolved{n, model}
	s, built := r.memo[key]
	if !built {
		s = r.build(n, model)
		setModels(s, nil) // kept without: each copy would copy them
		r.memo[key] = s
	}
	s = s.clone()
	setModels(s, r.models)
	return s
}

// setModels makes models the options of a spec's model field.
func setModels(s *Spec, models []string) {
	for i := range s.Fields {
		if s.Fields[i].Name == "model" {
			s.Fields[i].Options = models
		}
	}
}

func (r *resolver) build(n int, model string) *Spec {
	ls := r.ls[:n]
	var s *Spec
	if intro, at := introduction(ls, r.op, model); intro == nil {
		layer := tableLayer(r.op)
		s = &Spec{Operation: r.op, Model: model, Source: layer, base: model}
		build[r.op](s)
		for i := range s.Fields {
			s.Fields[i].Source = layer
			if layer == LayerService && s.Fields[i].Cite == "" {
				s.Fields[i].Cite = citeOps
			}
		}
	} else {
		like := intro.like
		if like == "" {
			like = operationModels[r.op][0]
		}
		// A model starts from its like as the layers up to its own make
		// it: a later layer's change to that model (the user's catalog
		// removing a field of svcq3-pro) is not a change to this one (svcq2,
		// like svcq3-pro in service.json) unless it says so itself.
		layer := ls[at].layer
		s = r.spec(at+1, like)
		s.Model, s.Source, s.Cite = model, layer, intro.cite
		for i := range s.Fields {
			s.Fields[i].Source = layer
			if intro.cite != "" {
				s.Fields[i].Cite = intro.cite
			}
		}
	}
	setModels(s, r.models)
	for _, o := range ls {
		for _, mp := range o.patches(r.op, model) {
			mp.apply(s, o.layer)
		}
	}
	return s
}

// introduction is the entry that added a model and the index of its layer
// in ls; nil for the spec's own models.
func introduction(ls []*overlay, op api.Operation, model string) (*modelPatch, int) {
	if model == "" || slices.Contains(operationModels[op], model) {
		return nil, -1
	}
	for i, o := range ls {
		if ps := o.patches(op, model); len(ps) > 0 {
			return ps[0], i
		}
	}
	return nil, -1
}
