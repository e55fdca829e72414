package ui

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"clapper/record"
)

type historyKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Open, Search, Charts key.Binding
}

func (k historyKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Search, k.Charts}
}

func (k historyKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Open, k.Search, k.Charts}}
}

// historyPage searches every past task and shows what was spent: totals,
// credits by day and by model.
type historyPage struct {
	env    *env
	keys   historyKeys
	win    *taskWindow
	search textinput.Model
	typing bool
	query  record.Filter
	// problem names the search word that could not be read; note a state
	// word no state clapper knows (searched all the same: the service may
	// name states the spec does not show).
	problem    string
	showCharts bool
	// typed counts the search's edits, searched the edit the list shows:
	// the search applies as typed, once typing pauses, like the Tasks filter.
	typed, searched int

	// totals is what the totals line shows, of one search; it changes
	// only when a count ends, so the line never shows one search's counts
	// beside another's credits.
	totals   historyTotals
	counting counter
	// countingShown: the count of a new search has outlasted
	// countingGrace, and the totals line says it is counting.
	countingShown bool
	// recount: the history changed while a count ran; it counts again
	// recountPause after it ends.
	recount bool
	// totalsErr is why the last count failed.
	totalsErr error

	// byDay and byModel are the charts, read with the totals.
	byDay   []record.DayCredits
	byModel []record.ModelCredits

	width, height int
	scroll        int
	// chartScroll is the first line of the charts shown in place of the
	// list on a narrow terminal.
	chartScroll int
	// chartLines is how many lines the charts in place took when last
	// drawn: the keys that scroll them are offered only when they pass
	// the list's room.
	chartLines int
}

// historyTotals are the counts by state of the tasks a search matches,
// with what they cost: the credits charged for the matches (a search
// beyond dates) or spent in the span (from, to).
type historyTotals struct {
	of       record.Filter
	counts   map[string]int
	credits  int64
	from, to time.Time
}

// counter is one kind of read the page keeps at most one of running: seq
// numbers them, only the latest one's answer is taken, and starting one
// cancels the one before (context cancel reaches the query: SQLite is
// interrupted, PostgreSQL sent a cancel request).
type counter struct {
	seq     int
	cancel  context.CancelFunc
	running bool
}

// start cancels the read running and numbers a new one, on a context of
// its own.
func (c *counter) start(parent context.Context) (context.Context, int) {
	c.stop()
	ctx, cancel := context.WithCancel(parent)
	c.seq++
	c.cancel, c.running = cancel, true
	return ctx, c.seq
}

// stop cancels the read running, if any; its answer will be dropped.
func (c *counter) stop() {
	if c.cancel != nil {
		c.cancel()
	}
	c.running = false
}

// ended reports that seq is the latest read, now over.
func (c *counter) ended(seq int) bool {
	if seq != c.seq {
		return false
	}
	c.running = false
	return true
}

// historyTotalsMsg is a count's answer, with the charts it read too.
type historyTotalsMsg struct {
	seq     int
	totals  historyTotals
	byDay   []record.DayCredits
	byModel []record.ModelCredits
	err     error
}

// historyCountingMsg: countingGrace has passed since count seq began.
type historyCountingMsg struct{ seq int }

// historyRecountMsg: recountPause has passed since count seq ended.
type historyRecountMsg struct{ seq int }

const (
	// countingGrace is how long a new search's count may take before the
	// totals line says it is counting: a quicker count changes the line
	// once, from the old figures to the new, without a flash between.
	countingGrace = 150 * time.Millisecond
	// recountPause spaces the counts a changing history asks for: a broad
	// search at a million tasks counts for half a second, and tasks in
	// flight change state more often than that.
	recountPause = time.Second
)

func newHistoryPage(e *env) *historyPage {
	in := textinput.New()
	in.Prompt = "search › "
	in.Placeholder = "words  state:failed  op:text2video  model:svcq1  from:2026-11-01  to:2026-11-30"
	p := &historyPage{env: e, search: in, keys: historyKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "newest")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "oldest")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Search:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Charts:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "charts")),
	}}
	p.win = newTaskWindow(e, []record.Filter{{}})
	p.win.uncounted = true // the totals line counts, in the same pass as its credits
	return p
}

func (p *historyPage) Title() string   { return pageTitles[pageHistory] }
func (p *historyPage) Capturing() bool { return p.typing }

func (p *historyPage) Help() help.KeyMap {
	k := p.keys
	k.Charts.SetEnabled(!p.wide())
	_, hasRow := p.win.selected()
	k.Open.SetEnabled(hasRow) // a search nothing matches has no task to open
	if p.chartsInPlace() {
		// What the list keys do to the charts shown in its place.
		k.Open.SetEnabled(false)
		for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom} {
			b.SetEnabled(p.chartLines > p.listHeight())
		}
		k.Up.SetHelp("↑/k", "scroll up")
		k.Down.SetHelp("↓/j", "scroll down")
		k.Top.SetHelp("g", "top")
		k.Bottom.SetHelp("G", "bottom")
		k.Charts.SetHelp("c", "the list")
	}
	if p.typing {
		return historyKeys{Search: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "search")),
			Open: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear"))}
	}
	return k
}

func (p *historyPage) Init() tea.Cmd {
	return tea.Batch(p.win.load(loadReplace, 0), p.loadFigures(true))
}

func (p *historyPage) reopen() tea.Cmd {
	p.win = newTaskWindow(p.env, []record.Filter{p.query})
	p.win.uncounted = true
	return p.Init()
}

func (p *historyPage) window() *taskWindow { return p.win }

func (p *historyPage) shows() changes { return changedTasks }

// taskChanged takes the task into its row; the counts and charts beside the
// list move with a state, and a search by state may lose or gain the task.
func (p *historyPage) taskChanged(t record.Task, stateChanged bool) reread {
	switch {
	case len(p.query.States) > 0:
		return rereadAll
	case stateChanged:
		p.win.update(t)
		return rereadFigures
	}
	p.win.update(t)
	return rereadNone
}

func (p *historyPage) refreshFigures() tea.Cmd { return p.loadFigures(false) }

func (p *historyPage) refresh() tea.Cmd {
	return tea.Batch(p.win.load(loadRefresh, 0), p.loadFigures(false))
}

func (p *historyPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.search.SetWidth(max(w-12, 10))
}

func (p *historyPage) wide() bool { return p.width >= 110 }

// statsRange is the charts' span: the search's dates, else the last 14 days.
func (p *historyPage) statsRange() (time.Time, time.Time) {
	now := p.env.now()
	y, m, d := now.Date()
	to := time.Date(y, m, d, 0, 0, 0, 0, now.Location()).AddDate(0, 0, 1)
	from := to.AddDate(0, 0, -14)
	if !p.query.From.IsZero() {
		from = p.query.From
	}
	if !p.query.To.IsZero() {
		to = p.query.To
	}
	if !from.Before(to) {
		// from: a day after today: the span is that day, with nothing in
		// it yet (the charts' reads refuse an empty span).
		to = from.AddDate(0, 0, 1)
	}
	return from, to
}

// readCharts reads credits by day and by model over [from, to).
func readCharts(ctx context.Context, store record.Store, from, to time.Time) ([]record.DayCredits, []record.ModelCredits, error) {
	byDay, err := store.CreditsByDay(ctx, from, to)
	if err != nil {
		return nil, nil, err
	}
	byModel, err := store.CreditsByModel(ctx, from, to)
	return byDay, byModel, err
}

// loadFigures reads the totals and the charts, in one read that runs on
// its own beside the list's rows: a broad word's (half a second at a
// million tasks) does not hold them up. A new search (fresh) cancels the
// read still running and, if its own outlasts countingGrace, the totals
// line says so; a change in the history lets a running read end and reads
// once more after it, keeping the figures shown meanwhile.
func (p *historyPage) loadFigures(fresh bool) tea.Cmd {
	if !fresh && p.counting.running {
		p.recount = true
		return nil
	}
	p.recount = false
	ctx, seq := p.counting.start(p.env.ctx)
	store, f := p.env.store(), p.query
	from, to := p.statsRange()
	count := func() tea.Msg {
		msg := historyTotalsMsg{seq: seq, totals: historyTotals{of: f, from: from, to: to}}
		if searched(f) {
			// The counts, what the matches cost and their charts (words
			// and tags as every other condition), in one pass over them.
			var t record.Totals
			t, msg.err = store.TotalsMatching(ctx, f, from, to)
			msg.totals.counts, msg.totals.credits = t.States, t.Credits
			msg.byDay, msg.byModel = t.ByDay, t.ByModel
			return msg
		}
		// Without a search the counts are kept by day and cost what the
		// charts do, and the line's credits are the charts' days.
		if msg.totals.counts, msg.err = store.CountsByState(ctx, f); msg.err != nil {
			return msg
		}
		msg.byDay, msg.byModel, msg.err = readCharts(ctx, store, from, to)
		for _, d := range msg.byDay {
			msg.totals.credits += d.Credits
		}
		return msg
	}
	if !fresh {
		return count
	}
	// "counting…", once shown, stays until a count ends: the next
	// search's count takes over the word without a flash of old figures.
	return tea.Batch(count, p.env.timers.after(countingGrace, historyCountingMsg{seq}))
}

func (p *historyPage) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case windowLoadedMsg:
		if msg.win == p.win {
			p.win.apply(msg)
		}
	case historyTotalsMsg:
		return p.counted(msg)
	case historyCountingMsg:
		if msg.seq == p.counting.seq && p.counting.running {
			p.countingShown = true
		}
	case historyRecountMsg:
		if msg.seq == p.counting.seq && !p.counting.running {
			return p.loadFigures(false)
		}
	case historySettledMsg:
		if msg.typed == p.typed && p.typing {
			return p.apply()
		}
	case tea.PasteMsg:
		if p.typing {
			var cmd tea.Cmd
			p.search, cmd = p.search.Update(msg)
			return tea.Batch(cmd, p.edited())
		}
	case tea.KeyPressMsg:
		if p.typing {
			return p.updateSearch(msg)
		}
		return p.updateKeys(msg)
	}
	return nil
}

// counted takes a count's answer, if it is the latest, and starts the
// recount a change asked for meanwhile.
func (p *historyPage) counted(msg historyTotalsMsg) tea.Cmd {
	if !p.counting.ended(msg.seq) {
		return nil
	}
	if errors.Is(msg.err, context.Canceled) {
		// Stopped by an edit of the search, which applies once typing
		// pauses: the line stays as it is until that search's count.
		return nil
	}
	p.countingShown = false
	switch {
	case msg.err != nil:
		p.totalsErr = msg.err
	default:
		p.totals, p.totalsErr = msg.totals, nil
		p.byDay, p.byModel = msg.byDay, msg.byModel
	}
	if p.recount {
		p.recount = false
		return p.env.timers.after(recountPause, historyRecountMsg{p.counting.seq})
	}
	return nil
}

// historySettledMsg: typing in the search paused after edit number typed.
type historySettledMsg struct{ typed int }

// edited schedules the search for when typing pauses, and stops the count
// of the search typed over: it would only be dropped.
func (p *historyPage) edited() tea.Cmd {
	p.counting.stop()
	p.typed++
	return p.env.timers.after(filterDelay, historySettledMsg{p.typed})
}

// apply searches for what is typed, unless the list already shows it; a
// word that cannot be read is named and the list stays as it was.
func (p *historyPage) apply() tea.Cmd {
	f, err := record.ParseSearch(p.search.Value())
	if err != nil {
		p.problem = err.Error()
		return nil
	}
	p.problem = ""
	if p.searched == p.typed {
		return nil
	}
	p.searched, p.query, p.scroll = p.typed, f, 0
	return tea.Batch(p.win.setSegments([]record.Filter{f}), p.loadFigures(true))
}

func (p *historyPage) updateSearch(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		cmd := p.apply()
		if p.problem == "" {
			p.typing = false
			p.search.Blur()
		}
		return cmd
	case "esc":
		p.typing, p.problem = false, ""
		p.search.Blur()
		p.search.SetValue("")
		p.typed++
		p.searched, p.query = p.typed, record.Filter{}
		return tea.Batch(p.win.setSegments([]record.Filter{{}}), p.loadFigures(true))
	}
	before := p.search.Value()
	var cmd tea.Cmd
	p.search, cmd = p.search.Update(msg)
	if p.search.Value() != before {
		return tea.Batch(cmd, p.edited())
	}
	return cmd
}

func (p *historyPage) listHeight() int { return max(p.height-4, 1) }

func (p *historyPage) updateKeys(msg tea.KeyPressMsg) tea.Cmd {
	k := p.Help().(historyKeys)
	switch {
	case p.chartsInPlace():
		// The charts in place of the list scroll (by model is below); the
		// list's cursor, hidden, neither moves nor opens a task unseen.
		switch {
		case key.Matches(msg, k.Up):
			p.chartScroll = max(p.chartScroll-1, 0)
		case key.Matches(msg, k.Down):
			p.chartScroll++
		case key.Matches(msg, k.PageUp):
			p.chartScroll = max(p.chartScroll-p.listHeight(), 0)
		case key.Matches(msg, k.PageDown):
			p.chartScroll += p.listHeight()
		case key.Matches(msg, k.Top):
			p.chartScroll = 0
		case key.Matches(msg, k.Bottom):
			p.chartScroll = 1 << 30 // View holds it to the last page
		case key.Matches(msg, k.Search):
			p.typing = true
			return p.search.Focus()
		case key.Matches(msg, k.Charts):
			p.showCharts = false
		case msg.String() == "enter":
			return status("the charts are shown: c shows the list, where enter opens a task")
		}
		return nil
	case key.Matches(msg, k.Up):
		return p.win.move(-1)
	case key.Matches(msg, k.Down):
		return p.win.move(1)
	case key.Matches(msg, k.PageUp):
		return p.win.move(-p.listHeight())
	case key.Matches(msg, k.PageDown):
		return p.win.move(p.listHeight())
	case key.Matches(msg, k.Top):
		return p.win.top()
	case key.Matches(msg, k.Bottom):
		return p.win.bottom()
	case key.Matches(msg, k.Search):
		p.typing = true
		return p.search.Focus()
	case key.Matches(msg, k.Charts):
		p.showCharts = !p.showCharts
		p.chartScroll = 0
	case key.Matches(msg, k.Open):
		if t, ok := p.win.selected(); ok {
			return func() tea.Msg { return openDetailMsg{localID: t.LocalID} }
		}
	}
	return nil
}

const chartWidth = 44
