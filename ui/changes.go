package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

// The change pipeline. Sources (the watcher's events, commits of other
// processes, the results of actions) do not re-read anything themselves:
// they mark what changed, and the root coalesces the marks into at most one
// refresh per frame of the header and of the screen in front. A state
// change is read as one row and put into the lists in place. A hidden page
// only remembers that it is stale and re-reads when it is shown.

// changes is a set of kinds of data that changed in history.
type changes uint8

const (
	// changedTasks: task rows, their counts and credits (the header, the
	// Tasks and History pages, the detail).
	changedTasks changes = 1 << iota
	// changedJobs: multi-scene jobs (the Scenes page).
	changedJobs
	// changedVoices: the voice library (the Voices page, the New page's
	// voice lists).
	changedVoices

	changedAll = changedTasks | changedJobs | changedVoices
)

// frameInterval is how long marks gather before they are read, so a burst
// of events costs one read: two of our frames (framesPerSecond).
const frameInterval = time.Second / 60

// refresher is a page that shows data from history.
type refresher interface {
	// shows is what the page reads.
	shows() changes
	// refresh re-reads it, keeping the cursor where it is.
	refresh() tea.Cmd
}

// taskLister is a page whose list can take a changed task into its row.
type taskLister interface {
	// taskChanged puts t into its row when the list holds it and reports
	// what the page still has to re-read: nothing, the figures beside the
	// list (counts, charts), or all of it (its filter or order depends on
	// what changed).
	taskChanged(t record.Task, stateChanged bool) reread
}

// figuresPage is a page that can re-read the figures beside its list
// alone (rereadFigures).
type figuresPage interface {
	refreshFigures() tea.Cmd
}

// reread is how much of a page is stale.
type reread uint8

const (
	rereadNone reread = iota
	rereadFigures
	rereadAll
)

type (
	// flushMsg: a frame has passed since the first mark; read what is
	// marked.
	flushMsg struct{}
	// rowsReadMsg are the rows of the tasks a frame's events changed.
	rowsReadMsg struct {
		reads map[string]rowRead // by task id
		tasks []record.Task      // those history holds
		err   error
	}
)

// rowRead is why a task's row is read again.
type rowRead struct {
	stateChanged bool
	// announce: the task finished while the user looked elsewhere.
	announce bool
}

// timers sets the program's timers: the real clock, or a test's.
type timers interface {
	// after delivers msg once d has passed.
	after(d time.Duration, msg tea.Msg) tea.Cmd
}

type realTimers struct{}

func (realTimers) after(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// mark records that what changed and schedules the frame's flush.
func (m *Model) mark(what changes) tea.Cmd {
	for i, p := range m.pages {
		if r, ok := p.(refresher); ok && r.shows()&what != 0 {
			m.stale[i] = rereadAll
		}
	}
	if what&changedTasks != 0 {
		m.headerStale = true
	}
	if m.detail() != nil && what&(changedTasks|changedJobs) != 0 {
		m.detailStale = true
	}
	if m.sheet() != nil && what&changedTasks != 0 {
		m.sheetStale = true
	}
	return m.scheduleFlush()
}

func (m *Model) scheduleFlush() tea.Cmd {
	if m.flushing {
		return nil
	}
	m.flushing = true
	return m.env.timers.after(frameInterval, flushMsg{})
}

// flush reads what is marked and on screen: the header, and the detail or
// the page in front. Hidden pages stay marked until they are shown.
func (m *Model) flush() tea.Cmd {
	m.flushing = false
	var cmds []tea.Cmd
	if len(m.rowsToRead) > 0 {
		cmds = append(cmds, readRows(m.env, m.rowsToRead))
		m.rowsToRead = nil
	}
	if m.headerStale {
		m.headerStale = false
		cmds = append(cmds, loadStats(m.env))
	}
	if m.sheetStale {
		m.sheetStale = false
		if m.sheet() != nil {
			cmds = append(cmds, m.sheet().reload())
		}
	}
	if m.detail() != nil {
		if m.detailStale {
			m.detailStale = false
			cmds = append(cmds, m.detail().refresh())
		}
		return tea.Batch(cmds...)
	}
	return tea.Batch(append(cmds, m.refreshShown())...)
}

// refreshShown re-reads what is marked of the page in front.
func (m *Model) refreshShown() tea.Cmd {
	stale := m.stale[m.active]
	m.stale[m.active] = rereadNone
	switch stale {
	case rereadAll:
		return m.pages[m.active].(refresher).refresh()
	case rereadFigures:
		if f, ok := m.pages[m.active].(figuresPage); ok {
			return f.refreshFigures()
		}
		return m.pages[m.active].(refresher).refresh()
	}
	return nil
}

// onStudioEvent takes an event of the watcher or the downloader: marks for
// what it changed, and a status line for what went wrong.
func (m *Model) onStudioEvent(msg studioEventMsg) tea.Cmd {
	ev := msg.ev
	cmds := []tea.Cmd{m.onTaskEvent(ev)}
	if m.sheet() != nil {
		cmds = append(cmds, m.sheet().taskEvent(ev))
	}
	switch ev.Kind {
	case studio.EventState:
		m.env.health.note(nil, m.env.now()) // a read answered: the link works
		// A task finished elsewhere is announced once read (onTaskRead);
		// the one in front of the user only says why it failed.
		if api.IsTerminal(ev.To) && ev.To != api.StateSuccess && m.looksAt(ev.TaskID) {
			why := ""
			if ev.Result != nil && ev.Result.ErrCode != "" {
				why = ": " + api.CleanLine(ev.Result.ErrCode)
			}
			cmds = append(cmds, statusErrText("task "+api.CleanLine(ev.TaskID)+" "+api.DescribeState(ev.To)+why))
		}
	case studio.EventDownload:
		if ev.Err != nil {
			cmds = append(cmds, statusErrText("download of task "+api.CleanLine(ev.TaskID)+": "+api.CleanLine(ev.Err.Error())))
		}
	case studio.EventLost:
		cmds = append(cmds, statusErrText("the service does not know task "+api.CleanLine(ev.TaskID)+"; it is no longer followed (r reads it again) and history keeps it as it was"))
	case studio.EventPollFailed:
		m.env.health.note(ev.Err, m.env.now())
		if ev.TaskID == "" && ev.Err != nil { // the studio could not load what to follow
			cmds = append(cmds, statusErrText(api.CleanLine(ev.Err.Error())))
		}
	case studio.EventPaused:
		cmds = append(cmds, statusErrText(studio.PauseNotice(ev, m.env.now())))
	case studio.EventSending:
		// Our own request, recorded and not yet answered: the lists show
		// it as being sent, not only once the service answers.
		cmds = append(cmds, m.mark(changedTasks))
	}
	if ev.Operation == api.OpGeneralOneClick {
		cmds = append(cmds, m.pages[pageScenes].(*scenesPage).jobEvent(ev))
	}
	return tea.Batch(cmds...)
}

// onTaskEvent turns an event of the watcher or the downloader into marks:
// a change of the task's row is read once and put in place, the header
// recounts a state change, and the detail showing the task re-reads it.
// A download's progress shows only in the detail; a failed or paused read
// shows nowhere.
func (m *Model) onTaskEvent(ev studio.Event) tea.Cmd {
	var cmds []tea.Cmd
	stateChanged := ev.Kind == studio.EventState
	switch ev.Kind {
	case studio.EventState, studio.EventJobUpdated, studio.EventLost:
		announce := stateChanged && api.IsTerminal(ev.To) && ev.From != ev.To && !m.looksAt(ev.TaskID)
		if m.rowsToRead == nil {
			m.rowsToRead = map[string]rowRead{}
		}
		r := m.rowsToRead[ev.TaskID]
		m.rowsToRead[ev.TaskID] = rowRead{stateChanged: r.stateChanged || stateChanged, announce: r.announce || announce}
		cmds = append(cmds, m.scheduleFlush())
	case studio.EventDownload:
	default:
		return nil
	}
	var what changes
	switch ev.Operation {
	case api.OpGeneralOneClick:
		what |= changedJobs
	default:
		if changesVoices(ev.Operation) && stateChanged {
			what |= changedVoices
		}
	}
	if what != 0 {
		cmds = append(cmds, m.mark(what))
	}
	if stateChanged {
		m.headerStale = true
		if ev.To == api.StateSuccess {
			m.env.usual = nil // a new success moves the medians
		}
	}
	if d := m.detail(); d != nil && d.task != nil && d.task.TaskID == ev.TaskID {
		m.detailStale = true
	}
	if m.headerStale || m.detailStale {
		cmds = append(cmds, m.scheduleFlush())
	}
	return tea.Batch(cmds...)
}

// changesVoices: a clone adds a voice to the library; a synthesis keeps
// one alive.
func changesVoices(op api.Operation) bool {
	return op == api.OpAudioClone || op == api.OpAudioTTS
}

// readRows reads the rows of the tasks a frame's events changed, in one
// query.
func readRows(e *env, reads map[string]rowRead) tea.Cmd {
	ctx, store := e.ctx, e.store()
	ids := make([]string, 0, len(reads))
	for id := range reads {
		ids = append(ids, id)
	}
	return func() tea.Msg {
		tasks, err := store.TaskSummaries(ctx, ids)
		return rowsReadMsg{reads: reads, tasks: tasks, err: err}
	}
}

// onRowsRead puts the tasks read again into the lists that hold them; a
// list that cannot take one in place is marked for a re-read, and so is
// every list when a task is not in this history (another backend's) or
// the read failed.
func (m *Model) onRowsRead(msg rowsReadMsg) tea.Cmd {
	if msg.err != nil {
		return m.mark(changedTasks)
	}
	var cmds []tea.Cmd
	if len(msg.tasks) < len(msg.reads) {
		cmds = append(cmds, m.mark(changedTasks))
	}
	for _, t := range msg.tasks {
		why := msg.reads[t.TaskID]
		if why.announce && m.env.sentHere(t) {
			cmds = append(cmds, m.announce(t))
		}
		for i, p := range m.pages {
			if l, ok := p.(taskLister); ok {
				if r := l.taskChanged(t, why.stateChanged); r > m.stale[i] {
					m.stale[i] = r
					cmds = append(cmds, m.scheduleFlush())
				}
			}
		}
	}
	return tea.Batch(cmds...)
}

// renewContext gives the running backend a fresh context for its
// commands, under the program's, cancelling the previous backend's.
func (e *env) renewContext() {
	if e.cancel != nil {
		e.cancel()
	}
	if e.root == nil {
		e.root = context.Background()
	}
	e.ctx, e.cancel = context.WithCancel(e.root)
}
