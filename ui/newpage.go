package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/forms"
	"clapper/internal/textutil"
	"clapper/studio"
)

type newStep int

const (
	stepOperation newStep = iota
	stepModel
	stepForm
)

type newKeys struct {
	Up, Down, Top, Bottom, Open, Back, Discard key.Binding
	// form holds the form's keys while one is shown.
	form *forms.Form
}

func (k newKeys) ShortHelp() []key.Binding {
	if k.form != nil {
		return k.form.ShortHelp()
	}
	return []key.Binding{k.Up, k.Down, k.Open, k.Back, k.Discard}
}

func (k newKeys) FullHelp() [][]key.Binding {
	if k.form != nil {
		return k.form.FullHelp()
	}
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}, {k.Open, k.Back, k.Discard}}
}

// newPage creates tasks: pick an operation, then a model, then fill the
// form generated from the catalog. A form left is kept as a draft (on disk,
// so a restart restores it); duplicating a task fills the form with its
// request.
type newPage struct {
	env    *env
	keys   newKeys
	step   newStep
	cursor int // operation
	model  int // model cursor
	width  int
	height int

	form    *forms.Form
	ctx     *forms.Context
	styles  *forms.Styles
	themeOf *Theme
	drafts  forms.Drafts
	// writes orders the draft files' writes, each in its own command.
	writes *draftWrites
	has    map[api.Operation]bool
	// sent is each operation's last request the service took; sentForm and
	// sentRev the form on screen as it was sent.
	sent     map[api.Operation]forms.Draft
	sentForm *forms.Form
	sentRev  int
	// savedForm and savedRev are the form as its draft was last written.
	savedForm *forms.Form
	savedRev  int
	sending   bool
	// answer is the service's answer to the last request sent.
	answer string
	bad    bool
	// search is ctrl+p's earlier prompts, over searchFor, the form it
	// fills, while open.
	search    *promptSearch
	searchFor *forms.Form
	// origins are the tasks fields of the form were filled from (s, send
	// onward), one per field, until the form is sent.
	origins []onwardOrigin
}

type (
	// draftLoadedMsg carries a draft read from disk (or none).
	draftLoadedMsg struct {
		op     api.Operation
		draft  forms.Draft
		ok     bool
		err    error
		values map[string]any // to apply on top (a preset, a duplicate)
		note   string
		onward *onwardChosenMsg // a result to place in the form
	}
	// sentMsg is the service's answer to a request from the form.
	sentMsg struct {
		op  api.Operation
		sub *studio.Submission
		err error
	}
	// selectTaskMsg asks the Tasks page to show and select a task.
	selectTaskMsg struct{ localID int64 }
	// createdMsg: a task was created from a form; the root shows it on
	// the Tasks page, with its detail for an answer that is already final
	// (a clone, a speech synthesis).
	createdMsg struct {
		localID    int64
		op         api.Operation
		openDetail bool
	}
	// draftsFoundMsg is what the drafts folder holds, read in a command:
	// the operations with a draft and the one last worked on.
	draftsFoundMsg struct {
		has  map[api.Operation]bool
		last api.Operation
		ok   bool
	}
	// voicesForFormMsg refreshes the voice library the form offers.
	voicesForFormMsg struct {
		voices   []string
		subjects []forms.StoredSubject
	}
	// discardDraftMsg: the user confirmed throwing a draft away.
	discardDraftMsg struct{ op api.Operation }
	// draftDiscardedMsg: the draft's file is gone (or could not be
	// removed: err).
	draftDiscardedMsg struct {
		op  api.Operation
		err error
	}
	// draftSavedMsg reports a draft write that failed (nil error is not sent).
	draftSavedMsg struct{ err error }
)

func newNewPage(e *env) *newPage {
	p := &newPage{env: e, keys: newKeys{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Top:     key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first")),
		Bottom:  key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
		Open:    key.NewBinding(key.WithKeys("enter", "right", "l"), key.WithHelp("enter", "open form")),
		Back:    key.NewBinding(key.WithKeys("esc", "left", "h"), key.WithHelp("esc", "back")),
		Discard: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "discard draft")),
	}, writes: newDraftWrites()}
	p.ctx = &forms.Context{Dir: workingDir()}
	p.resetBackend()
	return p
}

func workingDir() string {
	d, err := os.Getwd()
	if err != nil {
		return "."
	}
	return d
}

// resetBackend points drafts and prices at the current studio.
func (p *newPage) resetBackend() {
	s, ctx := p.env.studio, p.env.ctx
	p.drafts = forms.Drafts{Dir: filepath.Join(s.Config.DataDir, "drafts")}
	p.ctx.Quote = s.Quote
	p.ctx.Spending = func(op api.Operation, body map[string]any) (string, string) {
		return s.SpendingFor(ctx, s.Price(op, body), "")
	}
	p.ctx.SizeRule = s.Config.SizeRule
	p.ctx.Uploading = s.Config.Uploading
}

func (p *newPage) Title() string { return pageTitles[pageNew] }

func (p *newPage) Init() tea.Cmd {
	p.has = map[api.Operation]bool{}
	p.sent = map[api.Operation]forms.Draft{}
	d := p.drafts
	return tea.Batch(p.loadVoices(), p.loadSent(), func() tea.Msg {
		last, ok := d.Last()
		return draftsFoundMsg{has: d.Has(), last: last, ok: ok}
	})
}

func (p *newPage) reopen() tea.Cmd {
	p.resetBackend()
	p.form, p.step = nil, stepOperation
	return p.Init()
}

func (p *newPage) shows() changes   { return changedVoices }
func (p *newPage) refresh() tea.Cmd { return p.loadVoices() }

// Capturing: a form's keys are text; while its request is being sent it
// takes none, and the page keys go elsewhere (the answer comes back here).
func (p *newPage) Capturing() bool { return p.step == stepForm && p.form != nil && !p.sending }

func (p *newPage) Help() help.KeyMap {
	if p.searching() {
		return p.search.Help()
	}
	if p.step == stepForm && p.form != nil && p.sending {
		return newKeys{} // no key of the form's works until the answer
	}
	k := p.keys
	k.form = nil
	if p.step == stepForm && p.form != nil {
		k.form = p.form
	}
	if p.step == stepOperation {
		k.Back.SetEnabled(false)
	}
	k.Discard.SetEnabled(p.step == stepOperation && p.has[p.selected()])
	return k
}

func (p *newPage) SetSize(w, h int) {
	p.width, p.height = w, h
	if p.form != nil {
		p.form.SetSize(w-2, h-p.answerHeight())
	}
	if p.search != nil {
		p.search.SetSize(w-2, h)
	}
}

func (p *newPage) answerHeight() int {
	if p.answer != "" {
		return strings.Count(p.answerText(), "\n") + 2
	}
	return 0
}

// answerText is the service's answer, wrapped to at most three lines.
func (p *newPage) answerText() string {
	lines := strings.Split(wrap(p.answer, max(p.width-3, 20)), "\n")
	if len(lines) > 3 {
		lines = append(lines[:2], textutil.Fit(strings.Join(lines[2:], " "), max(p.width-3, 20)))
	}
	return strings.Join(lines, "\n")
}

func (p *newPage) selected() api.Operation { return api.Operations()[p.cursor] }

func (p *newPage) selectOp(op api.Operation) {
	for i, o := range api.Operations() {
		if o == op {
			p.cursor = i
		}
	}
}

// formStyles builds the form's styles from the theme, once per theme.
func (p *newPage) formStyles() *forms.Styles {
	th := p.env.theme
	if p.styles != nil && p.themeOf == th {
		return p.styles
	}
	s := &forms.Styles{
		Title: th.Title, Label: th.Strong.Bold(false), Focused: th.Title, Bar: th.Marker,
		Value: th.Input, Default: th.Dim.Italic(true), Dim: th.Dim, Key: th.Key,
		Error: th.Error, Warning: th.Warning, OK: th.Success, Section: th.Section,
		Selected: th.Selected, Track: th.Faint, Fill: th.Running, Overlap: th.Warning.Bold(true),
	}
	s.Build()
	p.styles, p.themeOf = s, th
	return s
}

func (p *newPage) openForm(op api.Operation, model string, values map[string]any) tea.Cmd {
	f, err := forms.New(p.ctx, p.formStyles(), op, model)
	if err != nil {
		return statusErr(err)
	}
	p.form, p.step, p.answer = f, stepForm, ""
	p.selectOp(op)
	p.offerRecall()
	p.SetSize(p.width, p.height)
	cmd := tea.Batch(f.Init(), p.loadResults())
	if values != nil {
		cmd = tea.Batch(cmd, f.Apply(values))
	}
	return tea.Batch(cmd, p.saveDraft())
}

func (p *newPage) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case duplicateMsg:
		return p.askDuplicate(msg)
	case duplicateConfirmedMsg:
		return p.duplicate(msg.task)
	case forms.RecallMsg:
		return p.openPromptSearch(msg)
	case lastSentWantedMsg:
		return p.recall(msg.op, false)
	case promptChosenMsg:
		return p.fillPrompt(msg, false)
	case promptFillMsg:
		return p.fillPrompt(msg.promptChosenMsg, true)
	case recallMsg:
		return p.recall(msg.op, true)
	case sentKeptMsg:
		if msg.err != nil {
			return statusErr(fmt.Errorf("the sent request could not be kept: %w", msg.err))
		}
		return nil
	case onwardChosenMsg:
		return p.openOnwardForm(msg)
	case newFormMsg:
		p.selectOp(msg.op)
		return p.loadDraft(msg.op, msg.values, "")
	case draftLoadedMsg:
		return p.onDraft(msg)
	case sentDraftsMsg:
		for op, dr := range msg.sent {
			if _, known := p.sent[op]; !known {
				p.sent[op] = dr
			}
		}
		p.offerRecall()
		return nil
	case draftsFoundMsg:
		return p.onDraftsFound(msg)
	case voicesForFormMsg:
		p.ctx.Voices, p.ctx.Subjects = msg.voices, msg.subjects
		return nil
	case resultsForFormMsg:
		p.ctx.Results = msg.results
		return nil
	case draftSavedMsg:
		if msg.err != nil {
			return statusErr(fmt.Errorf("the draft could not be kept: %w", msg.err))
		}
		return nil
	case discardDraftMsg:
		return p.discard(msg.op)
	case draftDiscardedMsg:
		return p.onDiscarded(msg)
	case forms.LeaveMsg:
		p.step = stepOperation
		if p.unchangedSinceSent() {
			p.form = nil // sent: the next form of it starts fresh
			return nil
		}
		return p.saveDraft()
	case forms.SubmitMsg:
		return p.send(msg)
	case forms.VariationsMsg:
		return p.askVariations(msg)
	case variationsSentMsg:
		return p.onVariationsSent()
	case sentMsg:
		return p.onSent(msg)
	case tea.KeyPressMsg:
		return p.onKey(msg)
	}
	if p.searching() {
		return p.toSearch(msg) // its answers, a paste into it
	}
	if p.form != nil {
		before := p.form.Revision()
		cmd := p.form.Update(msg)
		if p.form != nil && p.form.Revision() != before {
			// A paste, the text back from $EDITOR: kept like a keypress.
			return tea.Batch(cmd, p.saveDraft())
		}
		return cmd
	}
	return nil
}

func (p *newPage) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if p.searching() {
		return p.toSearch(msg)
	}
	if p.step == stepForm && p.form != nil {
		if p.sending {
			return status("the request is being sent: its form waits for the service's answer (1-6 go to the other pages meanwhile)")
		}
		p.answer = ""
		cmd := p.form.Update(msg)
		// The draft follows every keypress: a few hundred bytes written in
		// the background, so a crash loses nothing typed.
		return tea.Batch(cmd, p.saveDraft())
	}
	ops := api.Operations()
	switch p.step {
	case stepOperation:
		switch {
		case key.Matches(msg, p.keys.Up):
			p.cursor = (p.cursor + len(ops) - 1) % len(ops)
		case key.Matches(msg, p.keys.Down):
			p.cursor = (p.cursor + 1) % len(ops)
		case key.Matches(msg, p.keys.Top):
			p.cursor = 0
		case key.Matches(msg, p.keys.Bottom):
			p.cursor = len(ops) - 1
		case key.Matches(msg, p.keys.Open):
			op := p.selected()
			if p.has[op] || len(catalog.Models(op)) <= 1 {
				return p.loadDraft(op, nil, "")
			}
			p.step, p.model = stepModel, 0
		case key.Matches(msg, p.keys.Discard) && p.has[p.selected()]:
			op := p.selected()
			return func() tea.Msg {
				return openDialogMsg{&confirmDialog{
					title: "Discard the draft of " + string(op) + "?",
					body:  "Every value typed into its form is lost.",
					onYes: func() tea.Msg { return discardDraftMsg{op} },
				}}
			}
		}
	case stepModel:
		models := catalog.Models(p.selected())
		switch {
		case key.Matches(msg, p.keys.Up):
			p.model = (p.model + len(models) - 1) % len(models)
		case key.Matches(msg, p.keys.Down):
			p.model = (p.model + 1) % len(models)
		case key.Matches(msg, p.keys.Top):
			p.model = 0
		case key.Matches(msg, p.keys.Bottom):
			p.model = len(models) - 1
		case key.Matches(msg, p.keys.Open):
			return p.openForm(p.selected(), models[p.model], nil)
		case key.Matches(msg, p.keys.Back):
			p.step = stepOperation
		}
	}
	return nil
}

// discard removes a draft's file in a command.
func (p *newPage) discard(op api.Operation) tea.Cmd {
	d, w := p.drafts, p.writes
	n := w.issue(op, func() error { return d.Remove(op) })
	return func() tea.Msg { return draftDiscardedMsg{op: op, err: w.run(n)} }
}

func (p *newPage) onDiscarded(msg draftDiscardedMsg) tea.Cmd {
	if msg.err != nil {
		return statusErr(msg.err)
	}
	delete(p.has, msg.op)
	if p.form != nil && p.form.Operation() == msg.op {
		p.form = nil
	}
	return status("draft of " + string(msg.op) + " discarded")
}

// send hands the request to the tracker: it is recorded before it is sent.
func (p *newPage) send(msg forms.SubmitMsg) tea.Cmd {
	p.sending = true
	ctx, s, d := p.env.ctx, p.env.studio, p.drafts
	if msg.OverCap {
		ctx = studio.OverCap(ctx)
	}
	body := msg.Body
	parents := p.parentsOf(msg.Op)
	return submit(func() tea.Msg {
		_ = d.RememberSources(msg.Sources) // only duplicates lose by a failure here
		sub, err := s.SubmitFrom(ctx, msg.Op, body, parents)
		return sentMsg{op: msg.Op, sub: sub, err: err}
	})
}

func (p *newPage) onSent(msg sentMsg) tea.Cmd {
	p.sending = false
	if msg.err != nil {
		if p.form != nil {
			p.form.Sent()
		}
		p.answer, p.bad = "The service refused it: "+api.CleanLine(msg.err.Error()), true
		var se *studio.SubmitError
		if errors.As(msg.err, &se) {
			p.answer = fmt.Sprintf("Request #%d: %s", se.LocalID, api.CleanLine(se.Err.Error()))
		}
		var ns *studio.NotSentError
		notSent := errors.As(msg.err, &ns)
		if notSent {
			// Not a refusal: the service never saw it.
			p.answer = api.CleanLine(ns.Error())
			if se != nil {
				p.answer = fmt.Sprintf("Request #%d: %s", se.LocalID, p.answer)
			}
		}
		p.SetSize(p.width, p.height)
		if notSent {
			return statusErr(ns)
		}
		return statusErr(fmt.Errorf("not created: %w", msg.err))
	}
	var focus tea.Cmd
	if p.form != nil {
		focus = tea.Batch(p.form.Delivered(), p.keepSent())
	}
	// Recorded with the task sent.
	p.origins = slices.DeleteFunc(p.origins, func(o onwardOrigin) bool { return o.op == msg.op })
	id := msg.sub.Task.Identifier()
	state := msg.sub.Task.State
	if state == "" {
		state = api.StateCreated
	}
	text := fmt.Sprintf("%s created: task %s (%s)", msg.op, api.CleanLine(id), api.CleanLine(state))
	if msg.sub.Warning != nil {
		text += "; " + api.CleanLine(msg.sub.Warning.Error())
	}
	created := createdMsg{localID: msg.sub.LocalID, op: msg.op, openDetail: msg.op.IsSynchronous()}
	return tea.Batch(focus, status(text), func() tea.Msg { return created })
}

func (p *newPage) View() string {
	switch p.step {
	case stepForm:
		if p.searching() {
			return indent(p.search.View(), 1)
		}
		if p.form != nil {
			v := p.form.View()
			if p.answer != "" {
				st := p.env.theme.Error
				if !p.bad {
					st = p.env.theme.Success
				}
				v = st.Render(p.answerText()) + "\n\n" + v
			}
			if p.sending {
				v = p.env.theme.Running.Render("sending…") + "\n" + v
			}
			return indent(v, 1)
		}
	case stepModel:
		return p.modelView()
	}
	return p.operationView()
}
