package ui

import (
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

// tasksKeys are the Tasks page's bindings; those that do not apply to the
// selected row are disabled, so help never lists a dead key.
type tasksKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open, Filter, ClearFilter, State, Op    key.Binding
	Sort, Attach, Abandon, Reread           key.Binding
	// Sheet opens the contact sheet of the row's set; Sets lists them all.
	Sheet, Sets key.Binding
	// Extend and Upscale open those forms on the row's finished video.
	Extend, Upscale key.Binding
}

func newTasksKeys() tasksKeys {
	return tasksKeys{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:      key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:         key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "newest")),
		Bottom:      key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "oldest")),
		Open:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filters")),
		State:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "state filter")),
		Op:          key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "operation filter")),
		Sort:        key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "sort age/state")),
		Attach:      key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "attach task id")),
		Abandon:     key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "abandon request")),
		Reread:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-read task")),
		Sheet:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "its set's contact sheet")),
		Sets:        key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "sets (variations, batches)")),
		Extend:      extendKey(),
		Upscale:     upscaleKey(),
	}
}

// ShortHelp leads with what the row takes: a request of unknown outcome's
// attach and abandon come before the filters, which a line of 80 columns
// cut them behind.
func (k tasksKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Attach, k.Abandon, k.Filter, k.ClearFilter, k.State, k.Op}
}

func (k tasksKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Open, k.Filter, k.ClearFilter, k.State, k.Op, k.Sort},
		{k.Attach, k.Abandon, k.Reread, k.Sheet, k.Sets, k.Extend, k.Upscale},
	}
}

// stateChoice is a quick filter by state.
type stateChoice struct {
	label  string
	states []string
}

var stateChoices = []stateChoice{
	{"all", nil},
	{"in flight", []string{api.StateCreated, api.StateQueueing, api.StateProcessing, record.StateSubmitting}},
	{"succeeded", []string{api.StateSuccess}},
	{"failed", []string{api.StateFailed, record.StateRejected}},
}

// tasksPage is the home: every task, newest first, live.
type tasksPage struct {
	env  *env
	keys tasksKeys
	win  *taskWindow

	// intents are the requests still submitting; those nobody sends any
	// more (studio.OutcomeUnknown) are pinned on top as of unknown outcome, and the
	// pinned list follows them as they age (unknown).
	intents   []record.Task
	pinned    int // cursor in unknown(); -1 when in the list
	filter    textinput.Model
	filtering bool
	// typed counts the filter's edits and searched is the edit the list
	// shows: the list is searched once typing pauses (filterSettledMsg of
	// the last edit) or on enter, not on every key.
	typed, searched int
	// query is the filter's words as last searched (record.ParseSearch:
	// words, state:, op:, model:, tag:, from:, to:); problem names a word
	// that could not be read, note a state: no task can have.
	query      record.Filter
	problem    string
	state, op  int // quick filters: index into stateChoices, 0 or 1+operation
	byState    bool
	empty      bool // the history holds no task at all
	loadedOnce bool

	width, height int
	scroll        int // first visible list row
	rows          rowCache
}

func newTasksPage(e *env) *tasksPage {
	in := textinput.New()
	in.Prompt = "/ "
	in.Placeholder = "words state: op: model: tag: set: is:keeper from: to:"
	p := &tasksPage{env: e, keys: newTasksKeys(), pinned: -1, filter: in}
	p.win = newTaskWindow(e, p.segments())
	return p
}

func (p *tasksPage) Title() string { return pageTitles[pageTasks] }

// Capturing: while the filter is being typed, keys are text.
func (p *tasksPage) Capturing() bool { return p.filtering }

func (p *tasksPage) Init() tea.Cmd {
	return tea.Batch(p.win.load(loadReplace, 0), loadUnknown(p.env))
}

// reopen points the page at a new studio's history.
func (p *tasksPage) reopen() tea.Cmd {
	p.win = newTaskWindow(p.env, p.segments())
	p.intents, p.pinned, p.scroll = nil, -1, 0
	return p.Init()
}

// baseFilter is the typed filter and the quick ones together: both must
// hold, so a state: or op: typed meets the quick filter's choice.
func (p *tasksPage) baseFilter() record.Filter {
	f := p.query
	f.States = both(f.States, stateChoices[p.state].states)
	if p.op > 0 {
		f.Operations = both(f.Operations, []api.Operation{api.Operations()[p.op-1]})
	}
	return f
}

// both is the values two conditions allow together (nil allows any). When
// they share none, the answer is a value no task has, so nothing matches.
func both[T ~string](a, b []T) []T {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	var out []T
	for _, v := range a {
		if slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return []T{"(none)"}
	}
	return out
}

func (p *tasksPage) segments() []record.Filter {
	if p.byState {
		return stateSegments(p.baseFilter())
	}
	return []record.Filter{p.baseFilter()}
}

func (p *tasksPage) filtered() bool {
	return p.filter.Value() != "" || p.state != 0 || p.op != 0
}

func (p *tasksPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.filter.SetWidth(max(w-4, 10))
}

func (p *tasksPage) Help() help.KeyMap { return p.KeyMap() }

func (p *tasksPage) KeyMap() tasksKeys {
	k := p.keys
	_, onPinned := p.pinnedRow()
	_, onUnknown := p.unknownRow()
	k.Attach.SetEnabled(onUnknown)
	k.Abandon.SetEnabled(onUnknown)
	k.ClearFilter.SetEnabled(p.filtered())
	row, hasRow := p.win.selected()
	k.Open.SetEnabled(onPinned || hasRow)
	k.Reread.SetEnabled(!onPinned && hasRow && row.TaskID != "")
	k.Sheet.SetEnabled(!onPinned && hasRow)
	k.Extend.SetEnabled(!onPinned && hasRow && isFinishedVideo(&row))
	k.Upscale.SetEnabled(!onPinned && hasRow && isFinishedVideo(&row))
	if p.empty && !p.filtered() {
		// No task at all: nothing to filter or sort (o moved nothing).
		for _, b := range []*key.Binding{&k.Filter, &k.State, &k.Op, &k.Sort} {
			b.SetEnabled(false)
		}
	}
	if p.filtering {
		// Every other key is text while the words are typed.
		return tasksKeys{Filter: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
			ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the words"))}
	}
	return k
}

func (p *tasksPage) window() *taskWindow { return p.win }

func (p *tasksPage) shows() changes { return changedTasks }

// taskChanged takes the task into its row in place, unless the list is
// filtered or sorted by state: the task may then belong elsewhere.
func (p *tasksPage) taskChanged(t record.Task, _ bool) reread {
	for _, f := range p.win.segments {
		if len(f.States) > 0 {
			return rereadAll
		}
	}
	p.win.update(t)
	return rereadNone
}

// refresh re-reads what the page shows, keeping the cursor on its task.
func (p *tasksPage) refresh() tea.Cmd {
	return tea.Batch(p.win.load(loadRefresh, 0), loadUnknown(p.env))
}

func (p *tasksPage) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case windowLoadedMsg:
		if msg.win != p.win {
			return nil
		}
		p.win.apply(msg)
		p.loadedOnce = true
		if msg.err != nil {
			return statusErr(msg.err)
		}
		if !p.filtered() {
			p.empty = p.win.total == 0
		}
		return nil
	case unknownLoadedMsg:
		if msg.err == nil {
			p.intents = msg.tasks
			p.pinned = min(p.pinned, len(p.unknown())-1)
		}
		return nil
	case selectTaskMsg:
		// A task just created: show the whole list from the top with it
		// selected, whatever filter was on.
		p.filtering = false
		p.filter.Blur()
		p.filter.SetValue("")
		p.query, p.problem = record.Filter{}, ""
		p.searched = p.typed // a search still pending is this one
		p.state, p.op, p.pinned = 0, 0, -1
		p.win.segments = p.segments()
		return p.win.load(loadReplace, msg.localID)
	case filterSettledMsg:
		if msg.typed == p.typed {
			return p.search()
		}
		return nil
	case opFilterMsg:
		p.op, p.pinned = msg.op, -1
		return p.win.setSegments(p.segments())
	case tea.KeyPressMsg:
		if p.filtering {
			return p.updateFilter(msg)
		}
		return p.updateKeys(msg)
	case tea.PasteMsg:
		if p.filtering {
			var cmd tea.Cmd
			p.filter, cmd = p.filter.Update(msg)
			return tea.Batch(cmd, p.filterEdited())
		}
	}
	return nil
}

// filterDelay is the pause in typing after which the list is searched: at
// 100,000 tasks a search with its counts costs tens of milliseconds, too
// much for every key of a word.
const filterDelay = 150 * time.Millisecond

// filterSettledMsg: typing paused after the filter's edit number typed.
type filterSettledMsg struct{ typed int }

// search shows the list for the filter as typed, unless it already does;
// a word that cannot be read is named and the list stays as it was.
func (p *tasksPage) search() tea.Cmd {
	if p.searched == p.typed {
		return nil
	}
	f, err := record.ParseSearch(p.filter.Value())
	if err != nil {
		p.problem = err.Error()
		return nil
	}
	p.problem = ""
	p.searched, p.query = p.typed, f
	return p.win.setSegments(p.segments())
}

// filterEdited schedules the search for when typing pauses.
func (p *tasksPage) filterEdited() tea.Cmd {
	p.typed++
	return p.env.timers.after(filterDelay, filterSettledMsg{p.typed})
}

func (p *tasksPage) updateFilter(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		p.filtering = false
		p.filter.Blur()
		return p.search()
	case "esc":
		p.filtering = false
		p.filter.Blur()
		p.filter.SetValue("")
		p.typed++
		return p.search()
	}
	before := p.filter.Value()
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	if p.filter.Value() != before {
		p.pinned = -1
		return tea.Batch(cmd, p.filterEdited())
	}
	return cmd
}

func (p *tasksPage) visibleRows() int {
	// header row, the filter line when shown, pinned rows, a blank line
	h := p.height - 1
	if p.filtering || p.filter.Value() != "" || p.filtered() {
		h -= 1 + len(p.problemLines())
	}
	if n := len(p.unknown()); n > 0 {
		h -= n + 2
	}
	return max(h, 1)
}

func (p *tasksPage) updateKeys(msg tea.KeyPressMsg) tea.Cmd {
	k := p.KeyMap()
	unknown := p.unknown()
	p.pinned = min(p.pinned, len(unknown)-1)
	switch {
	case key.Matches(msg, k.Up):
		if p.pinned > 0 {
			p.pinned--
			return nil
		}
		if p.pinned < 0 && p.win.cursor == 0 && len(unknown) > 0 {
			p.pinned = len(unknown) - 1
			return nil
		}
		if p.pinned == 0 {
			return nil
		}
		return p.win.move(-1)
	case key.Matches(msg, k.Down):
		if p.pinned >= 0 {
			if p.pinned < len(unknown)-1 {
				p.pinned++
			} else if len(p.win.rows) > 0 {
				p.pinned = -1
				p.win.cursor = 0
			}
			return nil
		}
		return p.win.move(1)
	case key.Matches(msg, k.PageUp):
		p.pinned = -1
		return p.win.move(-p.visibleRows())
	case key.Matches(msg, k.PageDown):
		p.pinned = -1
		return p.win.move(p.visibleRows())
	case key.Matches(msg, k.Top):
		p.pinned = -1
		p.scroll = 0
		return p.win.top()
	case key.Matches(msg, k.Bottom):
		p.pinned = -1
		return p.win.bottom()
	case key.Matches(msg, k.Open):
		if p.pinned >= 0 {
			id := unknown[p.pinned].LocalID
			return func() tea.Msg { return openDetailMsg{localID: id} }
		}
		if t, ok := p.win.selected(); ok {
			return func() tea.Msg { return openDetailMsg{localID: t.LocalID} }
		}
	case key.Matches(msg, k.Sheet):
		if t, ok := p.win.selected(); ok {
			return openSetOf(p.env, t.LocalID)
		}
	case key.Matches(msg, k.Sets):
		return listSets(p.env)
	case key.Matches(msg, k.Extend), key.Matches(msg, k.Upscale):
		op := api.OpExtend
		if key.Matches(msg, k.Upscale) {
			op = api.OpUpscaleNew
		}
		t, _ := p.win.selected()
		return func() tea.Msg { return sourceVideoMsg{LocalID: t.LocalID, Op: op} }
	case key.Matches(msg, k.Filter):
		p.filtering = true
		return p.filter.Focus()
	case key.Matches(msg, k.ClearFilter):
		// The words searched go with the words shown: a query left behind
		// would keep filtering a list that says it is whole.
		p.filter.SetValue("")
		p.searched = p.typed
		p.query, p.problem = record.Filter{}, ""
		p.state, p.op = 0, 0
		return p.win.setSegments(p.segments())
	case key.Matches(msg, k.State):
		p.state = (p.state + 1) % len(stateChoices)
		p.pinned = -1
		return p.win.setSegments(p.segments())
	case key.Matches(msg, k.Op):
		return p.nextOp()
	case key.Matches(msg, k.Sort):
		p.byState = !p.byState
		return p.win.setSegments(p.segments())
	case key.Matches(msg, k.Reread):
		t, _ := p.win.selected()
		return rereadTask(p.env, t)
	case key.Matches(msg, k.Attach):
		t, _ := p.unknownRow()
		return p.attachDialog(t)
	case key.Matches(msg, k.Abandon):
		t, _ := p.unknownRow()
		d := &confirmDialog{
			title: fmt.Sprintf("Abandon request #%d?", t.LocalID),
			body: "Its answer never came, so the service may or may not have created the task. Abandon it only if you know " +
				"it was not created (no task with its prompt in the service's list). It stays in history as abandoned.",
			onYes: abandonTask(p.env, t),
		}
		return func() tea.Msg { return openDialogMsg{d: d} }
	}
	return explainTasksIdle(msg)
}

// explainTasksIdle says why a key of the detail or of a pinned request did
// nothing on a row, rather than nothing at all.
func explainTasksIdle(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "e":
		return status("e duplicates a task into New from its detail: enter opens it")
	case "t":
		return status("t tags a task from its detail: enter opens it")
	case "x":
		return status("x abandons a request whose answer never came (pinned at the top); no row here is one")
	}
	return nil
}

// opFilterMsg is the next operation filter o stops at (0: all).
type opFilterMsg struct{ op int }

// nextOp finds, in a command, the next operation after the one filtered
// that has tasks under the other filters: o never stops on an empty list
// (all operations is always a stop).
func (p *tasksPage) nextOp() tea.Cmd {
	ctx, store, from := p.env.ctx, p.env.store(), p.op
	f := p.query
	f.States = both(f.States, stateChoices[p.state].states)
	ops := api.Operations()
	return func() tea.Msg {
		for i := 1; i <= len(ops); i++ {
			n := (from + i) % (len(ops) + 1)
			if n == 0 {
				break
			}
			g := f
			g.Operations = both(f.Operations, []api.Operation{ops[n-1]})
			if c, err := store.Count(ctx, g); err == nil && c > 0 {
				return opFilterMsg{op: n}
			}
		}
		return opFilterMsg{op: 0}
	}
}

// tickEvery is how soon a visible row changes by itself: a spinner turns
// (a queued task's clock hand once a second), an age in seconds or minutes
// moves on, a URL countdown drops a minute, a request waiting for its
// answer passes the grace and is pinned. While a spinner turns, the rest
// moves with it, at most a step late: one frame serves them all.
func (p *tasksPage) tickEvery() time.Duration {
	now := p.env.now()
	var every time.Duration
	shorter := func(d time.Duration) {
		if every == 0 || d < every {
			every = d
		}
	}
	for _, t := range p.intents {
		if at := studio.UnknownAt(t); !at.IsZero() && !at.Before(now) {
			shorter(at.Sub(now) + time.Millisecond) // just past it: displayState is strict
		}
	}
	spinning := false
	// Two loops, not an append to the visible rows: they are the page's
	// own, and an append would write over the row below the screen.
	for _, rows := range [][]record.Task{p.visible(), p.unknown()} {
		for _, t := range rows {
			if d := nextMotion(t.State, t.OffPeak, now); d > 0 {
				spinning = spinning || spins(t.State)
				shorter(d) // at most a second: the age moves with it
				continue
			}
			switch {
			case now.Sub(t.CreatedAt) < time.Minute:
				shorter(time.Second)
			case now.Sub(t.CreatedAt) < time.Hour, !t.URLsExpireAt.IsZero() && t.URLsExpireAt.After(now):
				shorter(time.Minute)
			}
		}
	}
	if spinning {
		return spinnerStep
	}
	return every
}

// visible is the rows on screen, adjusting the scroll to keep the cursor
// in view.
func (p *tasksPage) visible() []record.Task {
	n := p.visibleRows()
	c := p.win.cursor
	if c < p.scroll {
		p.scroll = c
	}
	if c >= p.scroll+n {
		p.scroll = c - n + 1
	}
	p.scroll = min(max(p.scroll, 0), max(len(p.win.rows)-n, 0))
	end := min(p.scroll+n, len(p.win.rows))
	return p.win.rows[p.scroll:end]
}
