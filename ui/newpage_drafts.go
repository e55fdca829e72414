package ui

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/forms"
	"clapper/record"
)

// Drafts and sent requests of the New page. A form's draft follows every
// change and survives restarts; a form holding nothing is no draft. Once
// the service takes a request, it becomes its operation's last sent one:
// the draft ends, the form stays on screen for a variation, and the next
// form of that operation starts fresh with the sent values one key away
// (ctrl+p). Nothing typed is replaced without a question.

type (
	// sentDraftsMsg carries the last sent request of each operation.
	sentDraftsMsg struct{ sent map[api.Operation]forms.Draft }
	// sentKeptMsg reports keeping a sent request (a nil error is not sent).
	sentKeptMsg struct{ err error }
	// recallMsg: the user agreed to replace what the form holds with the
	// last sent request.
	recallMsg struct{ op api.Operation }
	// duplicateConfirmedMsg: the duplicate may replace the draft.
	duplicateConfirmedMsg struct{ task record.Task }
)

// loadSent reads the last sent request of every operation.
func (p *newPage) loadSent() tea.Cmd {
	d := p.drafts
	return func() tea.Msg {
		sent := map[api.Operation]forms.Draft{}
		for _, op := range api.Operations() {
			if dr, ok, err := d.LoadSent(op); ok && err == nil {
				sent[op] = dr
			}
		}
		return sentDraftsMsg{sent}
	}
}

// offerRecall tells the form on screen whether ctrl+p has a request to fill in.
func (p *newPage) offerRecall() {
	if p.form != nil {
		_, ok := p.sent[p.form.Operation()]
		p.form.OfferRecall(ok)
	}
}

// draftWrites orders the writes of the drafts folder. Each change writes
// in its own command, and commands run at once: two quick keys (→ → on a
// choice) would otherwise race, and the older write could land last. A
// write is numbered when the change is made; one older than the last
// written for its operation is skipped. A write is kept until it runs:
// the program may end before its command does (ctrl+c right after a key),
// and quitting runs what is left (flush).
type draftWrites struct {
	mu      sync.Mutex
	issued  uint64
	done    map[api.Operation]uint64
	pending map[uint64]draftWrite
}

// draftWrite is one write of op's files, issued and not yet run.
type draftWrite struct {
	op api.Operation
	fn func() error
}

func newDraftWrites() *draftWrites {
	return &draftWrites{done: map[api.Operation]uint64{}, pending: map[uint64]draftWrite{}}
}

// issue numbers a write of op and keeps it until it runs: in Update, so
// no I/O (fn is the write, run by the command or at quit).
func (w *draftWrites) issue(op api.Operation, fn func() error) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.issued++
	w.pending[w.issued] = draftWrite{op, fn}
	return w.issued
}

// run runs write n, unless it ran already (at quit) or a later write of
// its operation did.
func (w *draftWrites) run(n uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runLocked(n)
}

func (w *draftWrites) runLocked(n uint64) error {
	dw, ok := w.pending[n]
	delete(w.pending, n)
	if !ok || w.done[dw.op] > n {
		return nil
	}
	w.done[dw.op] = n
	return dw.fn()
}

// flush runs the writes whose commands have not, in the order they were
// issued, after any write running now; it gives up after limit (a drafts
// folder on a disk that hangs must not hold the terminal), saying so.
func (w *draftWrites) flush(limit time.Duration) error {
	done := make(chan error, 1)
	go func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		var errs []error
		for _, n := range slices.Sorted(maps.Keys(w.pending)) {
			op := w.pending[n].op
			if err := w.runLocked(n); err != nil {
				errs = append(errs, fmt.Errorf("the draft of %s could not be kept: %w", op, err))
			}
		}
		done <- errors.Join(errs...)
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return fmt.Errorf("drafts were still being written after %v: the last change may not be kept", limit)
	}
}

// unchangedSinceSent: the form on screen is exactly the request just sent.
func (p *newPage) unchangedSinceSent() bool {
	return p.form != nil && p.sentForm == p.form && p.form.Revision() == p.sentRev
}

// saveDraft keeps the form when its values moved since it was last kept:
// a key that changes nothing (a move, the review's keys) writes nothing,
// and so cannot race the end of a draft that was just sent.
func (p *newPage) saveDraft() tea.Cmd {
	if p.form == nil || p.unchangedSinceSent() || (p.savedForm == p.form && p.savedRev == p.form.Revision()) {
		return nil
	}
	p.savedForm, p.savedRev = p.form, p.form.Revision()
	d, dr, w := p.drafts, p.form.Draft(), p.writes
	if p.form.Blank() {
		// Nothing typed is no draft: the operation is not marked.
		if !p.has[dr.Op] {
			return nil
		}
		delete(p.has, dr.Op)
		n := w.issue(dr.Op, func() error { return d.Remove(dr.Op) })
		return func() tea.Msg { return draftSavedMsg{w.run(n)} }
	}
	p.has[dr.Op] = true
	n := w.issue(dr.Op, func() error { return d.Save(dr) })
	return func() tea.Msg {
		if err := w.run(n); err != nil {
			return draftSavedMsg{err}
		}
		return nil
	}
}

// keepSent makes the form just delivered its operation's last sent request.
func (p *newPage) keepSent() tea.Cmd {
	d, dr, w := p.drafts, p.form.Draft(), p.writes
	n := w.issue(dr.Op, func() error { return d.Sent(dr) })
	p.sent[dr.Op] = dr
	p.sentForm, p.sentRev = p.form, p.form.Revision()
	delete(p.has, dr.Op)
	p.offerRecall()
	return func() tea.Msg {
		if err := w.run(n); err != nil {
			return sentKeptMsg{err}
		}
		return nil
	}
}

// recall fills the form with the last sent request; over typed values only
// once the user agrees (force).
func (p *newPage) recall(op api.Operation, force bool) tea.Cmd {
	dr, ok := p.sent[op]
	if !ok || p.form == nil || p.form.Operation() != op {
		return nil
	}
	if !force && !p.form.Blank() {
		return func() tea.Msg {
			return openDialogMsg{&confirmDialog{
				title: "Replace this form with the last sent " + string(op) + "?",
				body:  "What is typed in the form now is lost; the last sent request fills it.",
				onYes: func() tea.Msg { return recallMsg{op} },
			}}
		}
	}
	dr.Focus = ""
	f, err := forms.Restore(p.ctx, p.formStyles(), dr)
	if err != nil {
		return statusErr(err)
	}
	p.form, p.answer = f, ""
	p.offerRecall()
	p.SetSize(p.width, p.height)
	return tea.Batch(f.Init(), p.saveDraft(), status("form filled with the last sent "+string(op)))
}

// askDuplicate fills the form with a task's request, asking first when
// the operation has a draft the duplicate would replace.
func (p *newPage) askDuplicate(msg duplicateMsg) tea.Cmd {
	op := msg.task.Operation
	if !p.has[op] {
		return p.duplicate(msg.task)
	}
	back := msg.from
	return func() tea.Msg {
		return openDialogMsg{&choiceDialog{
			title: fmt.Sprintf("%s has an unsent draft", op),
			body:  fmt.Sprintf("Duplicating request #%d fills the form with its values, in place of the draft.", msg.task.LocalID),
			choices: []dialogChoice{
				{key: "r", label: "replace the draft with the duplicate", cmd: func() tea.Msg { return duplicateConfirmedMsg{msg.task} }},
				{key: "k", label: "keep the draft and open it", cmd: p.loadDraft(op, nil, "the draft of "+string(op)+" is kept")},
			},
			onCancel: func() tea.Msg { return switchPageMsg{page: back} },
		}}
	}
}
