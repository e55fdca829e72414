package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
	"clapper/ui/preview"
)

// sheetThumbs caches the contact sheets' decoded thumbnails: a sheet of 16
// and the next one opened stay decoded, apart from the detail's previews.
var sheetThumbs = preview.NewCache(64)

// thumbSizes are the thumbnail boxes a sheet chooses from, in terminal
// cells (half-blocks: two pixels a row), largest first: the largest that
// shows every cell at once, else the smallest. cellTextLines are the lines
// of text under a thumbnail.
var thumbSizes = []struct{ w, h int }{{40, 10}, {30, 8}, {20, 5}, {17, 3}}

const cellTextLines = 3

type sheetKeys struct {
	Left, Right, Up, Down, First, Last, Keep, Open, File, Download, Discard, Undo, Onward, Retry, Back key.Binding
}

func newSheetKeys() sheetKeys {
	return sheetKeys{
		Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "left")),
		Right:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "right")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		First:    key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first")),
		Last:     key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
		Keep:     key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "keeper ★")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		File:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open file")),
		Download: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "download")),
		Discard:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "discard…")),
		Undo:     key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "bring back the discarded")),
		Onward:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "send onward")),
		Retry:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "send again…")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

func (k sheetKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Keep, k.Open, k.Onward, k.File, k.Download, k.Discard, k.Retry, k.Back}
}

func (k sheetKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Left, k.Right, k.Up, k.Down}, {k.First, k.Last, k.Keep, k.Open}, {k.Onward, k.File, k.Download, k.Discard, k.Undo, k.Retry, k.Back}}
}

// contactSheet shows a set's results side by side (the versions of one
// request, or a batch's lines): each cell a thumbnail of the image or the
// video's cover, with its state, seed and varied value under it. The user
// marks the keeper (★, kept in history), opens a result's detail or file,
// downloads it, sends it onward (s, the same picker as the detail's), or
// discards it.
//
// Thumbnails are half-blocks even where the terminal draws kitty images:
// sixteen placements at once would cost more than they show at this size.
//
// Discarding hides a version from the sheet and nothing else: its task
// stays in history (it cost credits, and the Tasks list still finds it),
// and its saved files stay on disk, so u can bring it back. A careful user
// deletes files in the file manager; the confirmation says where they are.
type contactSheet struct {
	env   *env
	keys  sheetKeys
	setID int64

	info     record.SetInfo
	cells    []sheetCell // the lines not discarded, in order
	activity studio.SetActivity
	loaded   bool
	problem  string
	// reloading is a read in flight; again asks for one more after it.
	reloading, again bool

	cursor int
	top    int // the first row of cells on screen
	width  int
	height int
	// tw and th are the thumbnail box chosen for the size and the cells.
	tw, th int

	thumbs    map[int64][]string // by task row: thumbLines of its picture
	thumbNote map[int64]string   // why a cell has no picture, or "loading"

	// discarded are the set's lines discarded (u brings them back); undo
	// the lines discarded here, the last last: u restores that one first.
	discarded []sheetCell
	undo      []int
	// focus is a line brought back: the next read puts the cursor on it.
	focus int
}

// sheetCell is one line of the set as the sheet shows it.
type sheetCell struct {
	line    int
	label   string
	op      api.Operation
	task    *record.Task // nil: never sent
	seed    string
	saved   string // the first saved file, if any
	waiting bool   // queued on our side, waiting for room at the service
}

type (
	// openSheetMsg asks the root to show a set's contact sheet.
	openSheetMsg struct{ setID int64 }
	// sheetLoadedMsg carries a set as history holds it.
	sheetLoadedMsg struct {
		setID     int64
		info      record.SetInfo
		cells     []sheetCell
		discarded []sheetCell // the lines discarded (line and label only)
		activity  studio.SetActivity
		err       error
	}
	// sheetThumbMsg carries one cell's decoded thumbnail, or why none.
	sheetThumbMsg struct {
		setID   int64
		localID int64
		w, h    int      // the box it was made for
		lines   []string // thumbLines
		note    string
	}
)

func newContactSheet(e *env, setID int64) *contactSheet {
	return &contactSheet{env: e, keys: newSheetKeys(), setID: setID, tw: thumbSizes[len(thumbSizes)-1].w, th: thumbSizes[len(thumbSizes)-1].h,
		thumbs: map[int64][]string{}, thumbNote: map[int64]string{}}
}

func (c *contactSheet) Init() tea.Cmd { return c.reload() }

func (c *contactSheet) Capturing() bool { return false }

func (c *contactSheet) SetSize(w, h int) {
	c.width, c.height = w, h
	c.fitThumbs()
	c.scrollToCursor()
}

// fitThumbs chooses the thumbnail box for the screen and the cells; a new
// box drops the thumbnails made for the old one (the next loadThumbs makes
// them again, from the preview cache when it has them). It reports whether
// the box changed.
func (c *contactSheet) fitThumbs() bool {
	size := thumbSizes[len(thumbSizes)-1]
	for _, sz := range thumbSizes {
		per := max((c.width+sheetGap)/(sz.w+2+sheetGap), 1)
		rows := max((c.height-sheetChrome)/(sz.h+cellTextLines+2), 1)
		if per*rows >= len(c.cells) {
			size = sz
			break
		}
	}
	if size.w == c.tw && size.h == c.th {
		return false
	}
	c.tw, c.th = size.w, size.h
	c.thumbs, c.thumbNote = map[int64][]string{}, map[int64]string{}
	return true
}

func (c *contactSheet) Help() help.KeyMap {
	k := c.keys
	cell := c.current()
	hasTask := cell != nil && cell.task != nil
	k.Keep.SetEnabled(cell != nil)
	k.Open.SetEnabled(hasTask)
	k.File.SetEnabled(hasTask && cell.saved != "")
	k.Download.SetEnabled(hasTask && cell.task.State == api.StateSuccess && len(cell.task.Creations) > 0)
	k.Discard.SetEnabled(cell != nil)
	k.Onward.SetEnabled(hasTask && cell.task.State == api.StateSuccess)
	k.Retry.SetEnabled(c.retryable() > 0)
	k.Undo.SetEnabled(len(c.discarded) > 0)
	// Keys that move nothing are not offered: ↑/↓ on a sheet of one row,
	// any move on a sheet of one cell.
	several, rows := len(c.cells) > 1, len(c.cells) > c.perRow()
	for _, b := range []*key.Binding{&k.Left, &k.Right, &k.First, &k.Last} {
		b.SetEnabled(several)
	}
	k.Up.SetEnabled(rows)
	k.Down.SetEnabled(rows)
	return k
}

// retryable counts the cells R would send again: failed, or never sent
// and not waiting in a run here.
func (c *contactSheet) retryable() int {
	if c.activity.Running {
		return 0
	}
	n := 0
	for _, cell := range c.cells {
		if cell.task == nil && !cell.waiting || cell.task != nil && cell.task.State == api.StateFailed {
			n++
		}
	}
	return n
}

// reload reads the set, its lines' tasks and saved files in a command.
func (c *contactSheet) reload() tea.Cmd {
	if c.reloading {
		c.again = true
		return nil
	}
	c.reloading = true
	ctx, s, id := c.env.ctx, c.env.studio, c.setID
	return func() tea.Msg {
		msg := sheetLoadedMsg{setID: id, activity: s.SetActivity(id)}
		if msg.info, msg.err = s.Record().Set(ctx, id); msg.err != nil {
			return msg
		}
		members, err := s.Record().SetMembers(ctx, id)
		if err != nil {
			msg.err = err
			return msg
		}
		for _, m := range members {
			if m.Discarded {
				msg.discarded = append(msg.discarded, sheetCell{line: m.Line, label: m.Label})
				continue
			}
			cell := sheetCell{line: m.Line, label: m.Label, op: m.Operation, waiting: msg.activity.Waiting[m.Line]}
			if seed, ok := strings.CutPrefix(m.Label, "seed="); ok {
				cell.seed = seed // known before it is sent
			}
			if m.LocalID != 0 {
				t, err := s.Record().Task(ctx, m.LocalID)
				if err != nil {
					msg.err = err
					return msg
				}
				cell.task = &t
				if seed := seedOf(t.Request); seed != "" {
					cell.seed = seed
				}
				if t.TaskID != "" {
					dls, err := s.Record().Downloads(ctx, t.TaskID)
					if err != nil {
						msg.err = err
						return msg
					}
					for _, dl := range dls {
						if dl.Status == record.DownloadDone && dl.Path != "" && dl.Kind == record.KindURL {
							cell.saved = dl.Path
							break
						}
					}
				}
			}
			msg.cells = append(msg.cells, cell)
		}
		return msg
	}
}

// seedOf reads a request's seed, as written ("" when none was sent).
func seedOf(request []byte) string {
	dec := json.NewDecoder(bytes.NewReader(request))
	dec.UseNumber()
	var body map[string]any
	if dec.Decode(&body) != nil {
		return ""
	}
	if n, ok := body["seed"].(json.Number); ok {
		return n.String()
	}
	return ""
}

func (c *contactSheet) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case sheetLoadedMsg:
		if msg.setID != c.setID {
			return nil
		}
		c.reloading = false
		var cmds []tea.Cmd
		if c.again {
			c.again = false
			cmds = append(cmds, c.reload())
		}
		if msg.err != nil {
			c.problem = "this set could not be read: " + api.CleanLine(msg.err.Error())
			return tea.Batch(cmds...)
		}
		c.info, c.cells, c.activity, c.loaded, c.problem = msg.info, msg.cells, msg.activity, true, ""
		c.discarded = msg.discarded
		c.fitThumbs()
		if i := slices.IndexFunc(c.cells, func(cell sheetCell) bool { return cell.line == c.focus }); i >= 0 {
			c.cursor = i
		}
		c.focus = 0
		c.cursor = min(c.cursor, max(len(c.cells)-1, 0))
		c.scrollToCursor()
		return tea.Batch(append(cmds, c.loadThumbs()...)...)
	case sheetThumbMsg:
		if msg.setID != c.setID || msg.w != c.tw || msg.h != c.th {
			return nil
		}
		if msg.lines != nil {
			c.thumbs[msg.localID] = msg.lines
			delete(c.thumbNote, msg.localID)
		} else {
			c.thumbNote[msg.localID] = msg.note
		}
		return nil
	case sheetChangedMsg:
		if msg.discarded != 0 {
			c.undo = append(c.undo, msg.discarded)
		}
		c.focus = msg.restored
		return c.reload()
	case tea.KeyPressMsg:
		return c.onKey(msg)
	}
	return nil
}

// taskEvent re-reads the sheet when a task changes: one of its own, or
// one a running set may just have sent (the sheet knows it only then).
func (c *contactSheet) taskEvent(ev studio.Event) tea.Cmd {
	if ev.Kind != studio.EventState && ev.Kind != studio.EventDownload {
		return nil
	}
	if c.activity.Running {
		return c.reload()
	}
	for _, cell := range c.cells {
		if cell.task != nil && cell.task.TaskID == ev.TaskID {
			return c.reload()
		}
	}
	return nil
}

// loadThumbs decodes, in commands, the pictures of finished cells not
// decoded yet: the image, or a video's cover.
func (c *contactSheet) loadThumbs() []tea.Cmd {
	var cmds []tea.Cmd
	for _, cell := range c.cells {
		t := cell.task
		if t == nil || t.State != api.StateSuccess || len(t.Creations) == 0 {
			continue
		}
		media := studio.MediaOf(t.Operation)
		if media != "image" && media != "video" {
			continue // speech and music: a cover-less cell
		}
		if c.thumbs[t.LocalID] != nil || c.thumbNote[t.LocalID] != "" {
			continue
		}
		c.thumbNote[t.LocalID] = "loading…"
		ctx, s, setID, task, saved, w, h := c.env.ctx, c.env.studio, c.setID, *t, cell.saved, c.tw, c.th
		cmds = append(cmds, func() tea.Msg {
			path := saved
			if media != "image" || saved == "" {
				p, err := s.TaskPreview(ctx, task, media == "image")
				if err != nil {
					return sheetThumbMsg{setID: setID, localID: task.LocalID, w: w, h: h, note: "no picture: " + api.CleanLine(err.Error())}
				}
				path = p
			}
			cells, err := sheetThumbs.Load(path, w, h)
			if err != nil {
				return sheetThumbMsg{setID: setID, localID: task.LocalID, w: w, h: h, note: "no picture: " + api.CleanLine(err.Error())}
			}
			return sheetThumbMsg{setID: setID, localID: task.LocalID, w: w, h: h, lines: thumbLines(cells, w, h)}
		})
	}
	return cmds
}

func (c *contactSheet) current() *sheetCell {
	if c.cursor < 0 || c.cursor >= len(c.cells) {
		return nil
	}
	return &c.cells[c.cursor]
}

func (c *contactSheet) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := c.Help().(sheetKeys)
	per := c.perRow()
	switch {
	case key.Matches(msg, k.Left):
		c.cursor = max(c.cursor-1, 0)
	case key.Matches(msg, k.Right):
		c.cursor = min(c.cursor+1, max(len(c.cells)-1, 0))
	case key.Matches(msg, k.Up):
		if c.cursor >= per {
			c.cursor -= per
		}
	case key.Matches(msg, k.Down):
		// A shorter last row takes the cursor to its last cell, so every
		// row "↓ more" promises is reached.
		if c.cursor/per < (len(c.cells)-1)/per {
			c.cursor = min(c.cursor+per, len(c.cells)-1)
		}
	case key.Matches(msg, k.First):
		c.cursor = 0
	case key.Matches(msg, k.Last):
		c.cursor = max(len(c.cells)-1, 0)
	case key.Matches(msg, k.Keep):
		return c.keep()
	case key.Matches(msg, k.Open):
		id := c.current().task.LocalID
		return func() tea.Msg { return openDetailMsg{localID: id} }
	case key.Matches(msg, k.File):
		return openExternal(c.env, c.current().saved)
	case key.Matches(msg, k.Download):
		return c.download()
	case key.Matches(msg, k.Discard):
		return c.askDiscard()
	case key.Matches(msg, k.Onward):
		id := c.current().task.LocalID
		return func() tea.Msg { return onwardMsg{LocalID: id} }
	case key.Matches(msg, k.Undo):
		return c.restore()
	case key.Matches(msg, k.Retry):
		return c.askRetry()
	case msg.String() == "R":
		return status("R: nothing to send again here (no version failed or went unsent, or the set is still running)")
	case msg.String() == "o" || msg.String() == "d" || msg.String() == "s" || msg.String() == "enter":
		return c.explainIdle(msg.String())
	}
	c.scrollToCursor()
	return nil
}

// explainIdle says why o, d or enter did nothing on this cell.
func (c *contactSheet) explainIdle(k string) tea.Cmd {
	cell := c.current()
	switch {
	case cell == nil:
		return nil
	case cell.task == nil:
		return statusErrText(fmt.Sprintf("%s: version %d was never sent, so it has no task yet", k, cell.line))
	case k == "o":
		return statusErrText(fmt.Sprintf("o: version %d has no saved file yet; d downloads it", cell.line))
	case k == "d" || k == "s":
		return statusErrText(fmt.Sprintf("%s: version %d has no result yet (%s)", k, cell.line, stateLabel(cell.task.State)))
	}
	return nil
}

// moving: a spinner turns while a cell on screen runs or waits; one
// scrolled away needs no frames.
func (c *contactSheet) moving() bool {
	per := c.perRow()
	from, to := min(c.top*per, len(c.cells)), min((c.top+c.rowsShown())*per, len(c.cells))
	for _, cell := range c.cells[from:to] {
		if cell.waiting || cell.task != nil && inFlight(cell.task.State) {
			return true
		}
	}
	return false
}

// tickEvery is how soon the sheet changes by itself: its spinners.
func (c *contactSheet) tickEvery() time.Duration {
	if c.moving() {
		return spinnerStep
	}
	return 0
}

// openSetOf opens the contact sheet of the set a task was sent in.
func openSetOf(e *env, localID int64) tea.Cmd {
	ctx, store := e.ctx, e.store()
	return func() tea.Msg {
		id, err := store.SetOfTask(ctx, localID)
		if errors.Is(err, record.ErrNoSet) {
			return statusMsg{text: fmt.Sprintf("task #%d was sent alone, not in a set (variations or a batch); C lists the sets", localID), bad: true}
		}
		if err != nil {
			return statusMsg{text: api.CleanLine(err.Error()), bad: true}
		}
		return openSheetMsg{setID: id}
	}
}

// sheetValue is what tells a cell from its siblings, for its last line:
// the varied value (not the seed, which has its own line), or a batch
// line's number and prompt (its operation has the line above).
func sheetValue(cell sheetCell) string {
	switch {
	case cell.label == "" && cell.task != nil && cell.task.Prompt != "":
		return fmt.Sprintf("line %d · %s", cell.line, api.CleanLine(cell.task.Prompt))
	case cell.label == "":
		return fmt.Sprintf("line %d", cell.line)
	case strings.HasPrefix(cell.label, "seed="):
		return fmt.Sprintf("version %d", cell.line)
	}
	return api.CleanLine(cell.label)
}
