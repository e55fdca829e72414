package ui

import (
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/forms"
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

// loadDraft reads an operation's draft in the background, then opens the
// form with values applied on top.
func (p *newPage) loadDraft(op api.Operation, values map[string]any, note string) tea.Cmd {
	d := p.drafts
	return func() tea.Msg {
		dr, ok, err := d.Load(op)
		return draftLoadedMsg{op: op, draft: dr, ok: ok, err: err, values: values, note: note}
	}
}
