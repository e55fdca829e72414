package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/forms"
	"clapper/record"
)

// What the New page reads from history and the drafts folder, always in
// commands.

// onDraftsFound takes in what the drafts folder holds and reopens the
// operation last worked on, unless the user has already opened a form.
func (p *newPage) onDraftsFound(msg draftsFoundMsg) tea.Cmd {
	for op := range msg.has {
		p.has[op] = true
	}
	if !msg.ok || !msg.has[msg.last] || p.form != nil || p.step != stepOperation {
		return nil // a form sent last has no draft: the operations show
	}
	p.selectOp(msg.last)
	return p.loadDraft(msg.last, nil, "")
}

func (p *newPage) loadVoices() tea.Cmd {
	ctx, store := p.env.ctx, p.env.store()
	return func() tea.Msg {
		vs, err := store.Voices(ctx)
		if err != nil {
			return nil
		}
		now := p.env.now()
		var ids []string
		for _, v := range vs {
			if !v.Expired(now) {
				ids = append(ids, v.VoiceID)
			}
		}
		subs, err := store.Subjects(ctx)
		if err != nil {
			return nil
		}
		var lib []forms.StoredSubject
		for _, sb := range subs {
			lib = append(lib, forms.StoredSubject{Name: sb.Name, ID: sb.ID})
		}
		return voicesForFormMsg{ids, lib}
	}
}

// resultsOffered is how many of the newest images ctrl+l steps through.
const resultsOffered = 12

// resultsForFormMsg refreshes the images an image field offers (ctrl+l).
type resultsForFormMsg struct{ results []forms.Result }

// loadResults reads the newest images finished in history with what each
// gives to a field (its URL while valid for a while, else its saved file),
// in a command: read when a form opens, so one finished since is there.
func (p *newPage) loadResults() tea.Cmd {
	ctx, s, store, now := p.env.ctx, p.env.studio, p.env.store(), p.env.now()
	return func() tea.Msg {
		var ops []api.Operation
		for _, op := range api.Operations() {
			if catalog.OutputOf(op) == catalog.OutputImage {
				ops = append(ops, op)
			}
		}
		page, err := store.Tasks(ctx, record.Filter{Operations: ops, States: []string{api.StateSuccess}, Limit: resultsOffered})
		if err != nil {
			return nil
		}
		var out []forms.Result
		for _, t := range page.Tasks {
			src, err := s.OnwardFrom(ctx, t.LocalID, now)
			if err != nil {
				continue // lapsed and never saved: nothing to offer
			}
			label := fmt.Sprintf("#%d %s", t.LocalID, t.Operation)
			if t.Prompt != "" {
				label += " · " + api.CleanLine(t.Prompt)
			}
			out = append(out, forms.Result{Value: src.Value, Label: label})
		}
		return resultsForFormMsg{out}
	}
}

// loadDraft reads an operation's draft in the background, then opens the
// form with values applied on top.
func (p *newPage) loadDraft(op api.Operation, values map[string]any, note string) tea.Cmd {
	d := p.drafts
	return func() tea.Msg {
		dr, ok, err := d.Load(op)
		return draftLoadedMsg{op: op, draft: dr, ok: ok, err: err, values: values, note: note}
	}
}
