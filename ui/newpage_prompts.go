package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"clapper/forms"
)

// The New page's side of ctrl+p: the earlier-prompts search over the form,
// and putting the prompt chosen there into the form. Nothing typed is
// replaced without a question.

// promptFillMsg: the user agreed to put the chosen text in place of what
// the field holds.
type promptFillMsg struct{ promptChosenMsg }

// searching: the earlier-prompts search is open over the form it was
// opened from (a form replaced since, or left, ends it).
func (p *newPage) searching() bool {
	return p.search != nil && p.step == stepForm && p.form != nil && p.form == p.searchFor
}

// openPromptSearch answers ctrl+p: a form without a prompt field fills with
// the last sent request as it always did; one with a prompt opens the
// search, the last sent request first.
func (p *newPage) openPromptSearch(msg forms.RecallMsg) tea.Cmd {
	if p.form == nil || p.form.Operation() != msg.Op {
		return nil
	}
	if msg.Field == "" {
		return p.recall(msg.Op, false)
	}
	dr, hasLast := p.sent[msg.Op]
	last, _ := dr.Values[msg.Field].(string)
	p.search, p.searchFor = newPromptSearch(p.env, msg.Op, msg.Field, last, hasLast), p.form
	p.search.SetSize(p.width-2, p.height)
	return p.search.Init()
}

// toSearch hands the search a message and closes it once it is done.
func (p *newPage) toSearch(msg tea.Msg) tea.Cmd {
	cmd, done := p.search.Update(msg)
	if done {
		p.search = nil
	}
	return cmd
}

// fillPrompt puts a chosen earlier prompt into its field. Over other typed
// text it asks first: replace it, add the prompt after it, or keep it.
func (p *newPage) fillPrompt(msg promptChosenMsg, agreed bool) tea.Cmd {
	if p.form == nil {
		return nil
	}
	typed, _ := p.form.Values()[msg.field].(string)
	if !agreed && strings.TrimSpace(typed) != "" && typed != msg.text {
		return func() tea.Msg {
			return openDialogMsg{&choiceDialog{
				title: "The " + msg.field + " holds typed text",
				body:  "Put the earlier prompt in its place, or after it?",
				choices: []dialogChoice{
					{key: "r", label: "replace what is typed", cmd: func() tea.Msg { return promptFillMsg{msg} }},
					{key: "a", label: "add it after what is typed", cmd: func() tea.Msg {
						return promptFillMsg{promptChosenMsg{field: msg.field, text: strings.TrimRight(typed, " \n") + " " + msg.text}}
					}},
				},
			}}
		}
	}
	cmd := p.form.Apply(map[string]any{msg.field: msg.text})
	return tea.Batch(cmd, p.saveDraft(), status(msg.field+" filled with an earlier prompt"))
}
