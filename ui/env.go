package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
	"clapper/ui/preview"
)

// env is what every screen shares: the running studio, the theme, the clock
// and the spinner's frame. The root owns it and swaps the studio when the
// backend changes; screens only read it.
type env struct {
	studio *studio.Studio
	// ctx is the running backend's: every command started for it runs on
	// it, and the root cancels it on quit and when it switches backends,
	// so no work of an old backend outlives it. Commands capture it when
	// they are made.
	ctx    context.Context
	cancel context.CancelFunc
	// root is the program's context (Background under tests): every
	// backend's ctx descends from it, so quitting cancels them all.
	root   context.Context
	theme  *Theme
	now    func() time.Time
	timers timers
	frame  int
	// kitty is set once the terminal answered the kitty graphics query:
	// previews are then real pixels instead of half-blocks.
	kitty *preview.Kitty
	// usual is the usual time of each operation and model read so far
	// (usual.go); the root fills it and empties it when a task succeeds.
	usual map[usualKey]record.Usual
	// health is what the last reads said of the link to a live service
	// (account.go); the root sets it.
	health health
	// answerWithin bounds a read of the account for the header
	// (accountAnswerWithin; a test shortens it).
	answerWithin time.Duration
}

func (e *env) store() record.Store { return e.studio.Record() }

// sentHere reports whether the task was sent from this copy: a team's
// members are told of their own tasks' ends, not of every teammate's.
func (e *env) sentHere(t record.Task) bool { return e.studio == nil || e.studio.SentHere(t) }

// team reports a team's shared history: its lists name who sent each task.
func (e *env) team() bool { return e.studio != nil && e.studio.Config.Team() }

// Messages: named for what happened.
type (
	// studioEventMsg is something the watcher or downloader recorded.
	studioEventMsg struct{ ev studio.Event }
	// historyChangedMsg: a commit reached the history (maybe another process).
	historyChangedMsg struct{}
	// statsLoadedMsg carries the header's figures.
	statsLoadedMsg struct {
		running, queued int
		creditsToday    int64
		err             error
	}
	// unknownLoadedMsg lists the requests of unknown outcome.
	unknownLoadedMsg struct {
		tasks []record.Task
		err   error
	}
	// statusMsg is a transient line for the status bar; changed is what
	// the action it reports wrote to history, for the root to mark.
	statusMsg struct {
		text    string
		bad     bool
		changed changes
	}
	// submitStartedMsg asks the root to send a request and count it as
	// unanswered until send's answer comes back.
	submitStartedMsg struct{ send tea.Cmd }
	// submitEndedMsg carries the answer of a request the root counted.
	submitEndedMsg struct{ answer tea.Msg }
	// quitConfirmedMsg: the user chose to quit while a request was
	// unanswered.
	quitConfirmedMsg struct{}
	// imageWantedMsg: the detail of localID has a preview to transmit as a
	// kitty image and asks the root for an image id.
	imageWantedMsg struct{ localID int64 }
	// statusExpiredMsg clears the status line if it still shows seq.
	statusExpiredMsg struct{ seq int }
	// openDetailMsg asks the root to show a task's detail; chain is set
	// when a detail opens the next task of a send-onward chain (p, >), so
	// that esc comes back to it.
	openDetailMsg struct {
		localID int64
		chain   bool
	}
	// openDialogMsg asks the root to show a dialog over everything.
	openDialogMsg struct{ d dialog }
	// switchPageMsg asks the root to show a page.
	switchPageMsg struct{ page int }
	// duplicateMsg hands a task's request to the New page.
	duplicateMsg struct {
		task record.Task
		from int // the page it came from, where a cancelled duplicate returns
	}
	// newFormMsg opens the New page's form of an operation with some values
	// already filled in (a voice for speech synthesis, say).
	newFormMsg struct {
		op     api.Operation
		values map[string]any
	}
	// tickMsg advances spinners and countdowns; only scheduled while
	// something on screen moves.
	tickMsg struct{ gen int }
	// studioOpenedMsg is a studio started on new settings.
	studioOpenedMsg struct {
		s   *studio.Studio
		err error
	}
)

func status(text string) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: text} }
}

// submit hands send to the root, which counts the request as unanswered
// until its answer arrives.
func submit(send tea.Cmd) tea.Cmd {
	return func() tea.Msg { return submitStartedMsg{send: send} }
}

// done is an action's status line and what it wrote.
func done(text string, what changes) tea.Msg {
	return statusMsg{text: text, changed: what}
}

func statusErr(err error) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: api.CleanLine(err.Error()), bad: true} }
}

// loadStats reads the header's figures: in flight against the service's
// limit and today's credits.
func loadStats(e *env) tea.Cmd {
	ctx, store, now := e.ctx, e.store(), e.now()
	return func() tea.Msg {
		counts, err := store.CountsByState(ctx, record.Filter{})
		if err != nil {
			return statsLoadedMsg{err: err}
		}
		y, m, d := now.Date()
		midnight := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
		days, err := store.CreditsByDay(ctx, midnight, midnight.Add(24*time.Hour))
		if err != nil {
			return statsLoadedMsg{err: err}
		}
		msg := statsLoadedMsg{
			running: counts[api.StateProcessing],
			queued:  counts[api.StateQueueing] + counts[api.StateCreated],
		}
		for _, d := range days {
			msg.creditsToday += d.Credits
		}
		return msg
	}
}

func loadUnknown(e *env) tea.Cmd {
	ctx, store := e.ctx, e.store()
	return func() tea.Msg {
		ts, err := store.UnknownOutcomes(ctx)
		return unknownLoadedMsg{tasks: ts, err: err}
	}
}

// attachTask verifies an id with the service before attaching it to a
// request of unknown outcome, then follows the task.
func attachTask(e *env, t record.Task, taskID string) tea.Cmd {
	ctx, s := e.ctx, e.studio
	return func() tea.Msg {
		state, err := s.Attach(ctx, t, taskID)
		if err != nil {
			var ae *api.Error
			switch {
			case errors.As(err, &ae) && ae.Status == 404:
				return statusMsg{text: fmt.Sprintf("task %s is not known to the service; request #%d stays of unknown outcome", api.CleanLine(taskID), t.LocalID), bad: true}
			case errors.As(err, &ae):
				return statusMsg{text: "could not check task " + api.CleanLine(taskID) + ": " + api.CleanLine(err.Error()), bad: true}
			}
			return statusMsg{text: api.CleanLine(err.Error()), bad: true}
		}
		return done(fmt.Sprintf("request #%d is task %s (%s)", t.LocalID, api.CleanLine(taskID), api.CleanLine(state)), changedTasks)
	}
}

func abandonTask(e *env, t record.Task) tea.Cmd {
	ctx, store := e.ctx, e.store()
	return func() tea.Msg {
		if err := store.Abandon(ctx, t.LocalID); err != nil {
			return statusMsg{text: api.CleanLine(err.Error()), bad: true}
		}
		return done(fmt.Sprintf("request #%d abandoned; it stays in history", t.LocalID), changedTasks)
	}
}
