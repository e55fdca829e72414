// Which fields a form asks for and in what order: the model's, less what a
// premium music video's mode or a template leaves out, with what each
// requires and the help under it.

package forms

import (
	"clapper/api"
	"clapper/api/catalog"
	"slices"
)

// layout lists the rows for the current model: the model, the fields that
// shape the result, values no field of this model takes, the advanced
// group, and the submit row.
func (f *Form) layout() {
	focused := f.focusedName()
	f.rows = f.rows[:0]
	inSpec := map[string]bool{}
	var adv []row
	for _, fd := range f.spec.Fields {
		inSpec[fd.Name] = true
		e := f.editor(fd.Name)
		if widgetOf(e) != widgetFor(fd) {
			// The new model asks for this field another way: a fresh
			// input of the right kind, holding the value typed.
			v := e.Value()
			e = newEditor(f.ctx, fd)
			e.Set(v)
			f.editors[fd.Name] = e
		}
		e.SetField(fd)
		r := row{kind: rowField, name: fd.Name}
		if !f.asked(fd.Name) && e.Value() == nil {
			continue
		}
		if advanced[fd.Name] {
			adv = append(adv, r)
			continue
		}
		f.rows = append(f.rows, r)
	}
	var strays []string
	for name, e := range f.editors {
		if !inSpec[name] && e.Value() != nil {
			strays = append(strays, name)
		}
	}
	slices.Sort(strays)
	for _, name := range strays {
		f.rows = append(f.rows, row{kind: rowField, name: name, stray: true})
	}
	if len(adv) > 0 {
		f.rows = append(f.rows, row{kind: rowAdvanced})
		if f.advanced {
			f.rows = append(f.rows, adv...)
		}
	}
	f.rows = append(f.rows, row{kind: rowSubmit})
	f.focus = 0
	for i, r := range f.rows {
		if r.kind == rowField && r.name == focused && focused != "" {
			f.focus = i
		}
	}
}

// asked reports whether the form asks for a field now: a premium music
// video's mode decides between the singers' faces and images, a template
// whether it takes an area or a beast.
func (f *Form) asked(name string) bool {
	if f.op == api.OpTemplate2Video {
		t, _ := f.editor("template").Value().(string)
		return catalog.TemplateTakes(t, name)
	}
	if f.op != api.OpPremiumMV || name != "lip_ref_urls" {
		return true
	}
	mode, _ := f.editor("premium_mv_mode").Value().(string)
	faces, images := catalog.PremiumModeAsks(mode)
	return faces || !images
}

// required reports whether a field must be given, the mode's and the
// template's rules included.
func (f *Form) required(fd catalog.Field) bool {
	if f.op == api.OpTemplate2Video && fd.Name == "prompt" {
		name, _ := f.editor("template").Value().(string)
		t, known := catalog.TemplateNamed(name)
		return known && !t.PromptOptional
	}
	if f.op == api.OpPremiumMV && (fd.Name == "lip_ref_urls" || fd.Name == "images") {
		mode, _ := f.editor("premium_mv_mode").Value().(string)
		faces, images := catalog.PremiumModeAsks(mode)
		return (fd.Name == "lip_ref_urls" && faces) || (fd.Name == "images" && images)
	}
	return fd.Required
}

// help is what a focused field's row says of it: a template's photos are
// its own (the catalog's help can only say "usually 1 or 2").
func (f *Form) help(fd catalog.Field) string {
	if f.op == api.OpTemplate2Video && fd.Name == "images" {
		name, _ := f.editor("template").Value().(string)
		if t, known := catalog.TemplateNamed(name); known {
			return "the " + name + " template's photos: " + t.Photos
		}
	}
	return fd.Help
}
