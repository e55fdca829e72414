package ui

import (
	"context"
	"slices"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
)

// taskWindow is a list of tasks read from history a page at a time: it
// holds at most windowCap rows around the cursor, fetching the next page
// below or above as the cursor nears an edge and dropping rows far from it,
// so memory and render cost stay flat with 100,000 tasks. A list is one or
// more segments (one filter each) shown one after another: sorting by state
// is the in-flight segment, then failed, then the rest.
type taskWindow struct {
	ctx      context.Context // the backend's (env.ctx)
	store    record.Store
	segments []record.Filter

	rows   []record.Task
	segOf  []int // the segment of each row
	offset int   // the position in the whole list of rows[0]
	cursor int   // index into rows
	total  int
	// uncounted: the page shows no place in the list (n/total), so a load
	// does not count what matches (a text search's count reads every match).
	uncounted bool

	atTop, atEnd bool // rows[0] is the first row, the last row the last
	loading      bool
	gen          int // a reload bumps it; older answers are dropped
}

const (
	windowPage = 100
	windowCap  = 600
)

// windowLoadedMsg is a page read from history for one window.
type windowLoadedMsg struct {
	win   *taskWindow
	gen   int
	mode  loadMode
	rows  []record.Task
	segOf []int
	// hitEdge: the read reached the list's end in its direction.
	hitEdge bool
	total   int
	keepID  int64 // the row the cursor should stay on (reload)
	err     error
}

type loadMode int

const (
	loadReplace loadMode = iota // from the top
	loadBottom                  // from the bottom (G)
	loadBelow                   // append older rows
	loadAbove                   // prepend newer rows
	loadRefresh                 // the same place, fresh rows
)

func newTaskWindow(e *env, segments []record.Filter) *taskWindow {
	return &taskWindow{ctx: e.ctx, store: e.store(), segments: segments, atTop: true}
}

// setSegments changes what the list shows and reloads it from the top.
func (w *taskWindow) setSegments(segs []record.Filter) tea.Cmd {
	w.segments = segs
	w.cursor, w.offset = 0, 0
	return w.load(loadReplace, 0)
}

func (w *taskWindow) selected() (record.Task, bool) {
	if w.cursor < 0 || w.cursor >= len(w.rows) {
		return record.Task{}, false
	}
	return w.rows[w.cursor], true
}

// position is the cursor's place in the whole list (0-based).
func (w *taskWindow) position() int { return w.offset + w.cursor }

func cursorOf(t record.Task) record.Cursor {
	return record.Cursor{CreatedAt: t.CreatedAt, LocalID: t.LocalID}
}

// load reads a page in the background; the answer arrives as a
// windowLoadedMsg for apply.
func (w *taskWindow) load(mode loadMode, keepID int64) tea.Cmd {
	if mode != loadRefresh && mode != loadReplace && mode != loadBottom && w.loading {
		return nil
	}
	if mode == loadReplace || mode == loadBottom {
		w.gen++
	}
	w.loading = true
	ctx, gen, store, segs, counted := w.ctx, w.gen, w.store, slices.Clone(w.segments), !w.uncounted
	var from record.Task
	fromSeg := 0
	switch mode {
	case loadBelow:
		from, fromSeg = w.rows[len(w.rows)-1], w.segOf[len(w.rows)-1]
	case loadAbove:
		from, fromSeg = w.rows[0], w.segOf[0]
	case loadRefresh:
		// At the top, rows added since belong on screen: read from the top.
		if len(w.rows) > 0 && !w.atTop {
			from, fromSeg = w.rows[0], w.segOf[0]
		}
	}
	size := windowPage
	if mode == loadRefresh {
		size = max(len(w.rows), windowPage)
	}
	return func() tea.Msg {
		msg := windowLoadedMsg{win: w, gen: gen, mode: mode, keepID: keepID}
		var err error
		if counted {
			if msg.total, err = countAll(ctx, store, segs); err != nil {
				msg.err = err
				return msg
			}
		}
		switch mode {
		case loadReplace:
			msg.rows, msg.segOf, msg.hitEdge, err = walk(ctx, store, segs, 0, record.Cursor{}, false, size)
		case loadBottom:
			msg.rows, msg.segOf, msg.hitEdge, err = walk(ctx, store, segs, len(segs)-1, record.Cursor{}, true, size)
			slices.Reverse(msg.rows)
			slices.Reverse(msg.segOf)
		case loadBelow:
			msg.rows, msg.segOf, msg.hitEdge, err = walk(ctx, store, segs, fromSeg, cursorOf(from), false, size)
		case loadAbove:
			msg.rows, msg.segOf, msg.hitEdge, err = walk(ctx, store, segs, fromSeg, cursorOf(from), true, size)
			slices.Reverse(msg.rows)
			slices.Reverse(msg.segOf)
		case loadRefresh:
			// Re-read from just above the first row: the row before it
			// anchors the page, so rows inserted since keep their place.
			if from.LocalID == 0 {
				msg.rows, msg.segOf, msg.hitEdge, err = walk(ctx, store, segs, 0, record.Cursor{}, false, size)
				break
			}
			above, aboveSeg, _, aerr := walk(ctx, store, segs, fromSeg, cursorOf(from), true, 1)
			if aerr != nil {
				err = aerr
				break
			}
			if len(above) == 0 {
				msg.rows, msg.segOf, msg.hitEdge, err = walk(ctx, store, segs, 0, record.Cursor{}, false, size)
				break
			}
			msg.rows, msg.segOf, msg.hitEdge, err = walk(ctx, store, segs, aboveSeg[0], cursorOf(above[0]), false, size)
		}
		msg.err = err
		return msg
	}
}

// walk reads up to n rows from segment seg after cursor c (newest first, or
// oldest first when up), moving on to the next (or previous) segment when
// one ends. hitEdge reports that the list ended.
func walk(ctx context.Context, store record.Store, segs []record.Filter, seg int, c record.Cursor, up bool, n int) (rows []record.Task, segOf []int, hitEdge bool, err error) {
	for seg >= 0 && seg < len(segs) && len(rows) < n {
		f := segs[seg]
		f.After, f.Reverse, f.Limit = c, up, n-len(rows)
		p, err := store.Tasks(ctx, f)
		if err != nil {
			return nil, nil, false, err
		}
		for _, t := range p.Tasks {
			rows = append(rows, t)
			segOf = append(segOf, seg)
		}
		if !p.Next.IsZero() {
			return rows, segOf, false, nil
		}
		if up {
			seg--
		} else {
			seg++
		}
		c = record.Cursor{}
	}
	return rows, segOf, seg < 0 || seg >= len(segs), nil
}

func countAll(ctx context.Context, store record.Store, segs []record.Filter) (int, error) {
	total := 0
	for _, f := range segs {
		n, err := store.Count(ctx, f)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// apply takes a page into the window and keeps the cursor on its row.
func (w *taskWindow) apply(msg windowLoadedMsg) {
	if msg.gen != w.gen {
		return
	}
	w.loading = false
	if msg.err != nil {
		return
	}
	w.total = msg.total
	var keep int64
	if t, ok := w.selected(); ok {
		keep = t.LocalID
	}
	if msg.keepID != 0 {
		keep = msg.keepID
	}
	switch msg.mode {
	case loadReplace:
		w.rows, w.segOf, w.offset, w.cursor = msg.rows, msg.segOf, 0, 0
		w.atTop, w.atEnd = true, msg.hitEdge
		w.keepCursorOn(keep)
	case loadBottom:
		w.rows, w.segOf = msg.rows, msg.segOf
		w.offset = max(0, w.total-len(w.rows))
		w.atTop, w.atEnd = msg.hitEdge, true
		w.cursor = len(w.rows) - 1
	case loadBelow:
		w.rows = append(w.rows, msg.rows...)
		w.segOf = append(w.segOf, msg.segOf...)
		w.atEnd = msg.hitEdge
		if drop := len(w.rows) - windowCap; drop > 0 && w.cursor > drop {
			w.rows, w.segOf = w.rows[drop:], w.segOf[drop:]
			w.offset += drop
			w.cursor -= drop
			w.atTop = false
		}
	case loadAbove:
		w.rows = append(slices.Clone(msg.rows), w.rows...)
		w.segOf = append(slices.Clone(msg.segOf), w.segOf...)
		w.cursor += len(msg.rows)
		w.offset = max(0, w.offset-len(msg.rows))
		w.atTop = msg.hitEdge
		if msg.hitEdge {
			w.offset = 0
		}
		if drop := len(w.rows) - windowCap; drop > 0 && w.cursor < len(w.rows)-drop {
			w.rows, w.segOf = w.rows[:len(w.rows)-drop], w.segOf[:len(w.segOf)-drop]
			w.atEnd = false
		}
	case loadRefresh:
		if w.atTop || w.offset == 0 {
			w.offset = 0
			w.atTop = true
		}
		w.rows, w.segOf = msg.rows, msg.segOf
		w.atEnd = msg.hitEdge
		w.keepCursorOn(keep)
	}
	w.cursor = min(max(w.cursor, 0), max(len(w.rows)-1, 0))
}

func (w *taskWindow) keepCursorOn(id int64) {
	if id == 0 {
		return
	}
	for i, t := range w.rows {
		if t.LocalID == id {
			w.cursor = i
			return
		}
	}
}

// move shifts the cursor by d rows and asks for a page when it nears an
// edge of what is held.
func (w *taskWindow) move(d int) tea.Cmd {
	if len(w.rows) == 0 {
		return nil
	}
	w.cursor = min(max(w.cursor+d, 0), len(w.rows)-1)
	switch {
	case w.cursor >= len(w.rows)-windowPage/4 && !w.atEnd:
		return w.load(loadBelow, 0)
	case w.cursor < windowPage/4 && !w.atTop:
		return w.load(loadAbove, 0)
	}
	return nil
}

func (w *taskWindow) top() tea.Cmd {
	if w.atTop {
		w.cursor = 0
		return nil
	}
	return w.load(loadReplace, 0)
}

func (w *taskWindow) bottom() tea.Cmd {
	if w.atEnd {
		w.cursor = max(len(w.rows)-1, 0)
		return nil
	}
	return w.load(loadBottom, 0)
}

// update puts a task's new summary into its row, if the window holds it:
// the row changes in place, the cursor stays.
func (w *taskWindow) update(t record.Task) bool {
	for i := range w.rows {
		if w.rows[i].LocalID == t.LocalID {
			w.rows[i] = t
			return true
		}
	}
	return false
}

// stateSegments is the list sorted by state: in flight first, then
// failures, then everything else, each newest first.
func stateSegments(base record.Filter) []record.Filter {
	groups := [][]string{
		{api.StateCreated, api.StateQueueing, api.StateProcessing, record.StateSubmitting},
		{api.StateFailed, record.StateRejected},
		{api.StateSuccess, record.StateAbandoned},
	}
	var segs []record.Filter
	for _, g := range groups {
		f := base
		if len(base.States) > 0 {
			f.States = nil
			for _, s := range g {
				if slices.Contains(base.States, s) {
					f.States = append(f.States, s)
				}
			}
			if len(f.States) == 0 {
				continue
			}
		} else {
			f.States = g
		}
		segs = append(segs, f)
	}
	return segs
}
