package forms

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/cursor"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	exteditor "clapper/internal/editor"
)

// advanced are the shared optional fields, kept in a collapsed group so
// the fields that shape the result come first.
var advanced = map[string]bool{
	"seed": true, "payload": true, "off_peak": true, "watermark": true, "wm_position": true,
	"wm_url": true, "meta_data": true, "callback_url": true,
}

type rowKind int

const (
	rowField rowKind = iota
	rowAdvanced
	rowSubmit
)

type row struct {
	kind rowKind
	name string
	// stray: a value this model (or the operation) has no field for; it
	// stays on the form, flagged, until the user removes it.
	stray bool
}

type mode int

const (
	modeEdit mode = iota
	modeReview
	modePicker
	modeReference
)

// Form is the request of one operation being written, generated from the
// catalog's fields for the chosen model. Values live in editors kept by
// field name, so switching models keeps everything typed: fields the new
// model lacks stay visible and flagged.
type Form struct {
	ctx    *Context
	styles *Styles
	id     int

	op    api.Operation
	model string
	spec  *catalog.Spec

	editors map[string]editor
	// touched are the fields the user has been to or that were filled:
	// only they show "required" before a review is asked for.
	touched  map[string]bool
	showAll  bool
	rows     []row
	focus    int
	advanced bool
	mode     mode

	width, height int
	offset        int

	// rev counts value changes; a check answers for the rev it saw.
	rev, checkedRev int
	checking        bool
	check           *Check

	review  reviewState
	picker  *picker
	refPick int
	// hint says why the last key did nothing, until the next key.
	hint string
	// recall: the operation has a last sent request to fill the form with.
	recall bool
}

var nextFormID int

// New builds the form of an operation for a model ("" for the first model,
// or for operations without one).
func New(ctx *Context, styles *Styles, op api.Operation, model string) (*Form, error) {
	models := catalog.Models(op)
	if model == "" && len(models) > 0 {
		model = models[0]
	}
	spec, err := catalog.Lookup(op, model)
	if err != nil {
		return nil, err
	}
	nextFormID++
	f := &Form{ctx: ctx, styles: styles, id: nextFormID, op: op, model: model, spec: spec, editors: map[string]editor{}, touched: map[string]bool{}}
	ctx.Op, ctx.Model = op, model
	if model != "" {
		f.editor("model").Set(model)
	}
	f.layout()
	// The model was just chosen: start at the first field after it.
	if len(f.rows) > 1 && f.rows[0].name == "model" {
		f.focus = 1
	}
	return f, nil
}

// Operation and Model name what the form creates.
func (f *Form) Operation() api.Operation { return f.op }
func (f *Form) Model() string            { return f.model }

// SetSize gives the form its room.
func (f *Form) SetSize(w, h int) {
	f.width, f.height = w, h
	if f.picker != nil {
		f.picker.setSize(w, h)
	}
}

// editor returns the field's editor, creating it on first use.
func (f *Form) editor(name string) editor {
	if e, ok := f.editors[name]; ok {
		return e
	}
	field, ok := f.spec.Field(name)
	if !ok {
		field, ok = catalog.FieldOf(f.op, name)
	}
	var e editor
	if ok {
		e = newEditor(f.ctx, field)
	} else {
		e = newRawEditor(f.ctx, name)
	}
	f.editors[name] = e
	return e
}

// FocusNext puts the cursor where a form opened with its source filled in
// goes on: the first required field left empty, else the field named
// (extend's duration), when the form shows it; else it stays.
func (f *Form) FocusNext(otherwise string) tea.Cmd {
	at := slices.IndexFunc(f.rows, func(r row) bool {
		if r.kind != rowField || f.editors[r.name].Value() != nil {
			return false
		}
		fd, ok := f.spec.Field(r.name)
		return ok && f.required(fd)
	})
	if at < 0 {
		at = slices.IndexFunc(f.rows, func(r row) bool { return r.kind == rowField && r.name == otherwise })
	}
	if at < 0 {
		return nil
	}
	if e := f.focused(); e != nil {
		e.Blur()
	}
	f.focus = at
	return f.focusCmd()
}

// FocusedField names the field the cursor is in ("" on a row that is not
// a field).
func (f *Form) FocusedField() string { return f.focusedName() }

func (f *Form) focusedName() string {
	if f.focus < len(f.rows) && f.rows[f.focus].kind == rowField {
		return f.rows[f.focus].name
	}
	return ""
}

func (f *Form) focused() editor {
	if name := f.focusedName(); name != "" {
		return f.editors[name]
	}
	return nil
}

// setModel switches the rules: every value stays; defaults follow the new
// model where the user set nothing; values it refuses are flagged by the
// next check.
func (f *Form) setModel(model string) {
	spec, err := catalog.Lookup(f.op, model)
	if err != nil {
		return
	}
	f.model, f.spec = model, spec
	f.ctx.Model = model
	f.layout()
}

// Init starts the first check.
func (f *Form) Init() tea.Cmd {
	f.rev++
	return tea.Batch(f.checkCmd(), f.focusCmd())
}

func (f *Form) focusCmd() tea.Cmd {
	if e := f.focused(); e != nil {
		return e.Focus()
	}
	return nil
}

// Apply fills fields from a request (a draft, a duplicated task, preset
// values). A model in it switches the form to that model first.
func (f *Form) Apply(values map[string]any) tea.Cmd {
	if m, ok := values["model"].(string); ok && m != "" && m != f.model {
		if _, err := catalog.Lookup(f.op, m); err == nil {
			f.setModel(m)
		} else {
			f.editor("model").Set(m)
		}
	}
	for name, v := range values {
		if name == "model" && catalog.Models(f.op) != nil {
			if s, _ := v.(string); s == f.model {
				f.editor("model").Set(s)
				continue
			}
		}
		if name == "subjects" {
			// A voice handed over as a subject's joins the subjects there are.
			if have, ok := f.editor(name).Value().([]any); ok {
				if add, ok := v.([]any); ok {
					v = append(slices.Clone(have), add...)
				}
			}
		}
		f.editor(name).Set(v)
		f.touched[name] = true
		if advanced[name] && v != nil {
			f.advanced = true
		}
	}
	f.layout()
	f.syncDuration()
	return f.changed()
}

// Revision counts the changes of values: a page keeps a draft when it moves.
func (f *Form) Revision() int { return f.rev }

// changed notes a new value and checks it, one check at a time.
func (f *Form) changed() tea.Cmd {
	f.rev++
	if f.checking {
		return nil
	}
	return f.checkCmd()
}

// Values are the raw values of the form (local paths unread): what a draft keeps.
func (f *Form) Values() map[string]any {
	out := map[string]any{}
	for name, e := range f.editors {
		if v := e.Value(); v != nil {
			out[name] = v
		}
	}
	// A model the catalog does not know (a draft's, after catalog.json
	// broke) stays the request's: the check refuses it by name, where the
	// form's own model would be sent in its place without a word.
	if m, _ := out["model"].(string); catalog.Models(f.op) != nil && m == "" {
		out["model"] = f.model
	}
	return out
}

// Capturing reports whether keys are text for an input (the page must not
// read them as its own).
func (f *Form) Capturing() bool { return true }

// Update routes a message: the form's own keys first, then the focused editor.
func (f *Form) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case checkedMsg:
		if msg.form != f.id {
			return nil
		}
		f.checking = false
		f.check, f.checkedRev = msg.check, msg.rev
		for name, e := range f.editors {
			switch x := e.(type) {
			case *listEditor:
				x.absent = msg.check.absent()
			case *framesEditor:
				x.takeCheck(append(slices.Clone(msg.check.Errors[name]), msg.check.Missing[name]...), msg.check.Cost)
			}
		}
		if f.rev != msg.rev {
			return f.checkCmd()
		}
		return nil
	case pickedMsg:
		return f.picked(msg)
	case exteditor.EditedMsg:
		// The text goes to the field that asked for the editor.
		if a, ok := f.editors[msg.ID].(*areaEditor); ok && a.edited(msg) {
			f.touched[msg.ID] = true
			return f.changed()
		}
		return nil
	case cursor.BlinkMsg:
		// A steady cursor: a blinking one would redraw the screen twice a
		// second while the user reads the form.
		return nil
	}
	switch f.mode {
	case modeReview:
		return f.updateReview(msg)
	case modePicker:
		return f.updatePicker(msg)
	case modeReference:
		return f.updateReference(msg)
	}
	k, isKey := msg.(tea.KeyPressMsg)
	if isKey {
		f.hint = ""
	}
	if !isKey {
		if e := f.focused(); e != nil {
			cmd, changed := e.Update(msg)
			if changed {
				return tea.Batch(cmd, f.afterEdit())
			}
			return cmd
		}
		return nil
	}
	e := f.focused()
	if e != nil && e.OwnsKey(k) {
		cmd := f.edit(e, msg)
		if l, ok := e.(interface{ Full() bool }); ok && k.String() == "enter" && l.Full() {
			return tea.Batch(cmd, f.move(1))
		}
		return cmd
	}
	switch {
	case key.Matches(k, keys.Review):
		return f.openReview()
	case key.Matches(k, keys.Leave):
		return func() tea.Msg { return LeaveMsg{} }
	case key.Matches(k, keys.Recall) && f.recallKey() != nil:
		msg := f.recallMsg()
		return func() tea.Msg { return msg }
	case key.Matches(k, keys.Pick) && f.takesFiles():
		return f.openPicker()
	case key.Matches(k, keys.Reference) && f.focusedName() == "prompt" && len(f.subjectNames()) > 0:
		f.mode, f.refPick = modeReference, 0
		return nil
	case key.Matches(k, keys.Remove) && f.rows[f.focus].stray:
		f.editors[f.rows[f.focus].name].Set(nil)
		f.layout()
		return tea.Batch(f.changed(), f.focusCmd())
	}
	switch f.rows[f.focus].kind {
	case rowAdvanced:
		if key.Matches(k, keys.Toggle) {
			f.advanced = !f.advanced
			f.layout()
			f.focusRow(rowAdvanced)
			return nil
		}
	case rowSubmit:
		if k.String() == "enter" {
			return f.openReview()
		}
	}
	switch {
	case key.Matches(k, keys.Next):
		return f.move(1)
	case key.Matches(k, keys.Prev):
		return f.move(-1)
	}
	if e != nil {
		return f.edit(e, msg)
	}
	f.explainIdle(k)
	return nil
}

func (f *Form) edit(e editor, msg tea.Msg) tea.Cmd {
	cmd, changed := e.Update(msg)
	if !changed {
		if k, ok := msg.(tea.KeyPressMsg); ok && cmd == nil {
			f.explainIdle(k)
		}
		return cmd
	}
	f.touched[f.focusedName()] = true
	return tea.Batch(cmd, f.afterEdit())
}

// afterEdit follows a change: a new model re-lays the form; a new duration
// redraws the timing timeline; every change is checked.
func (f *Form) afterEdit() tea.Cmd {
	switch f.focusedName() {
	case "model":
		if m, _ := f.editors["model"].Value().(string); m != "" && m != f.model {
			f.setModel(m)
		}
	case "premium_mv_mode", "template":
		f.layout()
	}
	f.syncDuration()
	return f.changed()
}

// syncDuration tells the timing editor the duration its bars are drawn over.
func (f *Form) syncDuration() {
	t, ok := f.editors["timing_prompts"].(*timingEditor)
	if !ok {
		return
	}
	d := 10.0
	if fd, ok := f.spec.Field("duration"); ok {
		if n, ok := fd.Default.(float64); ok {
			d = n
		}
	}
	if e, ok := f.editors["duration"]; ok {
		if n, ok := e.Value().(interface{ Float64() (float64, error) }); ok {
			if v, err := n.Float64(); err == nil && v > 0 {
				d = v
			}
		}
	}
	t.SetDuration(d)
}

func (f *Form) focusRow(kind rowKind) {
	for i, r := range f.rows {
		if r.kind == kind {
			f.focus = i
		}
	}
}

func (f *Form) move(by int) tea.Cmd {
	next := f.focus + by
	if next < 0 || next >= len(f.rows) {
		return nil
	}
	if e := f.focused(); e != nil {
		e.Blur()
		f.touched[f.focusedName()] = true
	}
	f.focus = next
	return f.focusCmd()
}

// takesFiles reports whether the focused field holds media a file can give.
func (f *Form) takesFiles() bool {
	switch e := f.focused().(type) {
	case *lineEditor:
		return e.f.Kind == catalog.KindMedia
	case *listEditor:
		return true
	case *framesEditor:
		_, ok := e.pickField()
		return ok
	}
	return false
}

func (f *Form) subjectNames() []string {
	if s, ok := f.editors["subjects"].(*subjectsEditor); ok {
		if _, takes := f.spec.Field("subjects"); takes {
			return s.Names()
		}
	}
	return nil
}

func (f *Form) updateReference(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	names := f.subjectNames()
	switch k.String() {
	case "up":
		f.refPick = max(f.refPick-1, 0)
	case "down":
		f.refPick = min(f.refPick+1, len(names)-1)
	case "g", "home":
		f.refPick = 0
	case "G", "end":
		f.refPick = max(len(names)-1, 0)
	case "esc":
		f.mode = modeEdit
	case "enter":
		f.mode = modeEdit
		if a, ok := f.editors["prompt"].(*areaEditor); ok && f.refPick < len(names) && a.insert("[@"+names[f.refPick]+"]") {
			return f.changed()
		}
	}
	return nil
}

// title is the form's heading: the operation and what it makes.
func (f *Form) title() string {
	return string(f.op) + " · " + strings.ToLower(catalog.Info(f.op).Title[:1]) + catalog.Info(f.op).Title[1:]
}
