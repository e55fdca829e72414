package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

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

func (p *newPage) onDraft(msg draftLoadedMsg) tea.Cmd {
	var cmds []tea.Cmd
	if msg.err != nil {
		cmds = append(cmds, statusErr(msg.err))
	}
	if msg.note != "" {
		cmds = append(cmds, status(msg.note))
	}
	if msg.ok {
		f, err := forms.Restore(p.ctx, p.formStyles(), msg.draft)
		if err != nil {
			return statusErr(err)
		}
		p.form, p.step, p.answer = f, stepForm, ""
		p.offerRecall()
		p.selectOp(msg.op)
		p.SetSize(p.width, p.height)
		cmds = append(cmds, f.Init(), p.loadResults())
		if msg.values != nil {
			// Values handed over (a voice from Voices): the cursor goes on
			// where the user does, not where the draft was left.
			cmds = append(cmds, f.Apply(msg.values), f.FocusNext(f.PromptField()))
		}
		return tea.Batch(append(cmds, p.placeOnward(msg.onward), p.saveDraft())...)
	}
	p.selectOp(msg.op)
	model := ""
	if m, ok := msg.values["model"].(string); ok {
		model = m
	}
	if _, err := catalog.Lookup(msg.op, model); err != nil {
		model = ""
	}
	cmds = append(cmds, p.openForm(msg.op, model, msg.values))
	return tea.Batch(append(cmds, p.placeOnward(msg.onward), p.saveDraft())...)
}

// duplicate opens the form of a task's operation filled with its request.
// Files sent as data URIs are found again by their digest when they still
// hold the same bytes; the others are flagged on their field.
func (p *newPage) duplicate(t record.Task) tea.Cmd {
	d := p.drafts
	return func() tea.Msg {
		dec := json.NewDecoder(bytes.NewReader(t.Request))
		dec.UseNumber()
		var req map[string]any
		if err := dec.Decode(&req); err != nil {
			return statusMsg{text: fmt.Sprintf("request #%d has no readable request to duplicate", t.LocalID), bad: true}
		}
		values, _ := d.Relink(req).(map[string]any)
		// The duplicate replaces the draft: the values come from the task.
		_ = os.Remove(filepath.Join(d.Dir, string(t.Operation)+".json"))
		note := fmt.Sprintf("form filled from request #%d", t.LocalID)
		return draftLoadedMsg{op: t.Operation, values: values, note: note}
	}
}
