package ui

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
	"clapper/studio"
)

// A result sent onward fills a field of the New page's form, over the
// operation's draft as any handed-over value does (newFormMsg). The form
// carries where each value came from until it is sent (one task per field:
// a video into video_url, a speech into audio_url): the request is then
// recorded as sent onward from those tasks, except where a field no longer
// holds the value (removed or replaced by hand). The links live while
// clapper runs; a draft restored after a restart has none, but a field
// that holds a result's URL is tied to its task when sent (the studio
// finds it by the URL).

// onwardOrigin is the task a form's field was filled from.
type onwardOrigin struct {
	op     api.Operation
	parent int64
	target catalog.Target
	value  string
}

// openOnwardForm opens the chosen operation's form (its draft, when there
// is one) with the result placed in the chosen field.
func (p *newPage) openOnwardForm(msg onwardChosenMsg) tea.Cmd {
	op := msg.target.Operation
	p.selectOp(op)
	load := p.loadDraft(op, nil, "")
	return func() tea.Msg {
		m, _ := load().(draftLoadedMsg)
		m.onward = &msg
		return m
	}
}

// placeOnward puts the result into the form just opened, on a model that
// takes the field, and remembers where it came from.
func (p *newPage) placeOnward(msg *onwardChosenMsg) tea.Cmd {
	if msg == nil || p.form == nil {
		return nil
	}
	t, src := msg.target, msg.src
	values := map[string]any{}
	if len(t.Models) > 0 && !slices.Contains(t.Models, p.form.Model()) {
		values["model"] = t.Models[0]
	}
	v, label := t.Place(p.form.Values()[t.Field], src.Value)
	values[t.Field] = v
	// A new pick for a field replaces the one before it there; a new key
	// frame or subject is a place of its own, beside those before it.
	p.origins = slices.DeleteFunc(p.origins, func(o onwardOrigin) bool {
		return o.op == t.Operation && o.target.Label() == t.Label() && t.Item == ""
	})
	p.origins = append(p.origins, onwardOrigin{op: t.Operation, parent: src.Task.LocalID, target: t, value: src.Value})
	note := fmt.Sprintf("%s %s now holds %s of #%d (%s %s): %s", t.Operation, label, src.Output, src.Task.LocalID, src.Task.Operation, glyph(src.Task.State), api.CleanLine(src.Why))
	if t.Field == creationField {
		note = sourceNote(t.Operation, src.Task)
	}
	if model, switched := values["model"].(string); switched {
		note += "; model " + model + " takes it"
	}
	if t.Index >= 0 && label != t.Label() {
		// A last frame into a form with no first frame goes first: a
		// list has no gaps.
		note += fmt.Sprintf("; the list had no item before %s, so it is %s for now", t.Name, label)
	}
	cmd := p.form.Apply(values)
	if t.Field == creationField {
		// Extend or upscale a video: what is left to choose comes next
		// (upscale's resolution), else by how much to extend it.
		cmd = tea.Batch(cmd, p.form.FocusNext("duration"))
	}
	return tea.Batch(cmd, status(note))
}

// parentsOf are the tasks a request of op being sent came from: the form's
// origins whose fields still hold their results, one per field.
func (p *newPage) parentsOf(op api.Operation) []record.Parent {
	if p.form == nil {
		return nil
	}
	var out []record.Parent
	for _, o := range p.origins {
		if o.op != op {
			continue
		}
		label, held := o.target.Holds(p.form.Values()[o.target.Field], o.value)
		if held && !slices.ContainsFunc(out, func(q record.Parent) bool { return q.Field == label }) {
			out = append(out, record.Parent{LocalID: o.parent, Field: label})
		}
	}
	return out
}

// linkVersions ties each variation of a form filled onward to the task it
// came from: versions vary a number, a choice or a text (studio's
// VaryFields), never the media or voice a result fills, so each holds it.
func (p *newPage) linkVersions(op api.Operation, versions []studio.SetRequest) {
	parents := p.parentsOf(op)
	for i := range versions {
		versions[i].Parents = parents
	}
}
