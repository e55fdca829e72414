package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
	"clapper/ui/preview"
)

type detailKeys struct {
	Up, Down, Back, Open, Folder, Copy, Download, Reread, Cancel, Duplicate, Onward, Parent, Child, Lineage, Tags key.Binding
	// Extend and Upscale open those forms on the task's video.
	Extend, Upscale key.Binding
}

func newDetailKeys() detailKeys {
	return detailKeys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Open:      key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open file")),
		Folder:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "open folder")),
		Copy:      key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy URL")),
		Download:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "download")),
		Reread:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-read")),
		Cancel:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel task")),
		Duplicate: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "duplicate into New")),
		Onward:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "send onward")),
		Parent:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "task it came from")),
		Child:     key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "task sent onward to")),
		Lineage:   key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "lineage: the whole chain")),
		Tags:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tags & note")),
		Extend:    extendKey(),
		Upscale:   upscaleKey(),
	}
}

func (k detailKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Back, k.Onward, k.Open, k.Copy, k.Download, k.Reread, k.Cancel, k.Duplicate, k.Tags}
}

func (k detailKeys) FullHelp() [][]key.Binding {
	// Three columns of at most six: four did not fit 80 columns, and a
	// seventh row would push the help's closing hint off an 80x24 screen.
	return [][]key.Binding{{k.Up, k.Down, k.Back, k.Parent, k.Child, k.Lineage}, {k.Open, k.Folder, k.Copy, k.Download, k.Reread, k.Tags},
		{k.Onward, k.Extend, k.Upscale, k.Duplicate, k.Cancel}}
}

// detailModel shows one task: its request, the service's echo, the state
// timeline, the error with its meaning, the results with their expiry and
// downloads, and a preview of an image or a video's cover.
type detailModel struct {
	env     *env
	localID int64
	keys    detailKeys

	task      *record.Task
	downloads []record.Download
	loadErr   error

	vp            viewport.Model
	bar           progress.Model
	width, height int

	preview        *preview.Cells
	previewNote    string
	previewLoading bool
	// imageID is the kitty image of the preview; 0 when drawn as cells.
	imageID int
}

type detailLoadedMsg struct {
	localID   int64
	task      record.Task
	downloads []record.Download
	err       error
}

type previewLoadedMsg struct {
	localID int64
	cells   *preview.Cells
	note    string
}

// previews caches decoded previews across detail views.
var previews = preview.NewCache(16)

func newDetailModel(e *env, localID int64) *detailModel {
	d := &detailModel{env: e, localID: localID, keys: newDetailKeys()}
	d.vp = viewport.New()
	d.bar = progress.New(progress.WithWidth(30), progress.WithoutPercentage(), progress.WithColors(e.theme.Accent, e.theme.Busy))
	return d
}

func (d *detailModel) Init() tea.Cmd { return d.refresh() }

func (d *detailModel) Capturing() bool { return false }

func (d *detailModel) refresh() tea.Cmd {
	ctx, store, id := d.env.ctx, d.env.store(), d.localID
	return func() tea.Msg {
		t, err := store.Task(ctx, id)
		if err != nil {
			return detailLoadedMsg{localID: id, err: err}
		}
		// A multi-scene job's saved newest cut stands for its result.
		dls, _, err := studio.ResultDownloads(ctx, store, t)
		return detailLoadedMsg{localID: id, task: t, downloads: dls, err: err}
	}
}

func (d *detailModel) SetSize(w, h int) {
	d.width, d.height = w, h
	d.vp.SetWidth(d.textWidth())
	d.vp.SetHeight(h)
	d.render()
}

// sideBySide: wide terminals show the preview beside the text.
func (d *detailModel) sideBySide() bool { return d.width >= 110 }

func (d *detailModel) textWidth() int {
	if d.sideBySide() {
		return d.width - previewCols - 3
	}
	return d.width
}

const (
	previewCols, previewRows             = 44, 16
	narrowPreviewCols, narrowPreviewRows = 32, 9
)

func (d *detailModel) Help() help.KeyMap {
	k := d.keys
	t := d.task
	hasFile := d.savedFile() != ""
	k.Open.SetEnabled(hasFile)
	k.Folder.SetEnabled(hasFile)
	k.Copy.SetEnabled(t != nil && d.firstURL() != "")
	k.Download.SetEnabled(t != nil && t.State == api.StateSuccess && len(t.Creations) > 0)
	k.Reread.SetEnabled(t != nil && t.TaskID != "")
	k.Cancel.SetEnabled(t != nil && studio.Cancellable(*t))
	k.Duplicate.SetEnabled(t != nil && len(t.Request) > 0)
	k.Tags.SetEnabled(t != nil)
	// Offered on every finished task: what it gives, or why it gives
	// nothing (a lapsed URL never saved), is said when pressed.
	k.Onward.SetEnabled(t != nil && t.State == api.StateSuccess)
	k.Extend.SetEnabled(isFinishedVideo(t))
	k.Upscale.SetEnabled(isFinishedVideo(t))
	k.Parent.SetEnabled(t != nil && len(t.From) > 0)
	k.Child.SetEnabled(t != nil && len(t.Onward) > 0)
	k.Lineage.SetEnabled(t != nil && (len(t.From) > 0 || len(t.Onward) > 0))
	// A detail that fits its room does not scroll.
	scrolls := d.vp.TotalLineCount() > d.vp.Height()
	k.Up.SetEnabled(scrolls)
	k.Down.SetEnabled(scrolls)
	return k
}

func (d *detailModel) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case detailLoadedMsg:
		if msg.localID != d.localID {
			return nil
		}
		d.loadErr = msg.err
		if msg.err == nil {
			first := d.task == nil
			d.task, d.downloads = &msg.task, msg.downloads
			d.render()
			var cmds []tea.Cmd
			if _, known := d.env.usual[d.usualKey()]; !known && (inFlight(d.task.State) || d.task.State == api.StateSuccess) {
				cmds = append(cmds, loadUsual(d.env, d.usualKey()))
			}
			if first || (d.preview == nil && !d.previewLoading) {
				cmds = append(cmds, d.loadPreview())
			}
			return tea.Batch(cmds...)
		}
		d.render()
		return nil
	case previewLoadedMsg:
		if msg.localID != d.localID {
			return nil
		}
		d.previewLoading = false
		d.preview, d.previewNote = msg.cells, msg.note
		d.render()
		if d.env.kitty != nil && d.preview != nil {
			id := d.localID
			return func() tea.Msg { return imageWantedMsg{localID: id} }
		}
		return nil
	case tea.KeyPressMsg:
		return d.onKey(msg)
	}
	return nil
}

// transmit shows the preview as kitty image id (the root hands ids out);
// the encoding runs in the command, off the UI's path.
func (d *detailModel) transmit(k preview.Kitty, id int) tea.Cmd {
	d.imageID = id
	d.render()
	cells := d.preview
	return func() tea.Msg { return tea.RawMsg{Msg: k.Transmit(cells, id)} }
}

func (d *detailModel) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := d.Help().(detailKeys)
	ctx, s := d.env.ctx, d.env.studio
	switch {
	case key.Matches(msg, k.Up):
		d.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		d.vp.ScrollDown(1)
	case msg.String() == "pgup":
		d.vp.PageUp()
	case msg.String() == "pgdown", msg.String() == "space":
		d.vp.PageDown()
	case key.Matches(msg, k.Open):
		return openExternal(d.env, d.savedFile())
	case key.Matches(msg, k.Folder):
		return openFolderOf(d.env, d.savedFile())
	case key.Matches(msg, k.Copy):
		u := d.liveURL()
		if u == "" {
			why := "not copied: the result URL is dead (expired, or its download failed); r re-reads the task for a fresh one"
			if p := d.savedFile(); p != "" {
				why += "; the saved file is " + api.CleanLine(p)
			}
			return statusErrText(why)
		}
		return tea.Batch(tea.SetClipboard(u), status("copied the result URL to the clipboard (OSC 52; your terminal must allow it)"))
	case key.Matches(msg, k.Download):
		t := *d.task
		if p, all := d.allSaved(); all {
			return status("already saved: " + api.CleanLine(p) + savedHint(p, "o opens it, f its folder"))
		}
		return func() tea.Msg {
			if err := s.Download(ctx, t); err != nil {
				return statusMsg{text: api.CleanLine(err.Error()), bad: true}
			}
			return done("downloading the results of task "+api.CleanLine(t.TaskID), changedTasks)
		}
	case key.Matches(msg, k.Reread):
		return rereadTask(d.env, *d.task)
	case key.Matches(msg, k.Cancel):
		t := *d.task
		return func() tea.Msg {
			return openDialogMsg{d: &confirmDialog{
				title: "Cancel task " + api.CleanLine(t.TaskID) + "?",
				body:  "The service stops it and returns its credits; it then reads failed with UserCancelled.",
				onYes: func() tea.Msg {
					if err := s.Cancel(ctx, t); err != nil {
						return statusMsg{text: "cancel: " + api.CleanLine(err.Error()), bad: true}
					}
					return done("task "+api.CleanLine(t.TaskID)+" cancelled", changedTasks)
				},
			}}
		}
	case key.Matches(msg, k.Tags):
		t := *d.task
		return func() tea.Msg { return openDialogMsg{newTagEditor(d.env, t)} }
	case key.Matches(msg, k.Duplicate):
		t := *d.task
		return func() tea.Msg { return duplicateMsg{task: t} }
	case key.Matches(msg, k.Parent):
		return openParent(d.task.From)
	case key.Matches(msg, k.Child):
		return openChild(d.task.Onward)
	case key.Matches(msg, k.Lineage):
		return openLineage(d.env, d.task.LocalID)
	case key.Matches(msg, k.Onward):
		id := d.localID
		return func() tea.Msg { return onwardMsg{LocalID: id} }
	case key.Matches(msg, k.Extend), key.Matches(msg, k.Upscale):
		op := api.OpExtend
		if key.Matches(msg, k.Upscale) {
			op = api.OpUpscaleNew
		}
		id := d.localID
		return func() tea.Msg { return sourceVideoMsg{LocalID: id, Op: op} }
	}
	return nil
}

func (d *detailModel) usualKey() usualKey {
	return usualKey{op: d.task.Operation, model: d.task.Model}
}

// tick redraws what moves with the clock: the time a task in flight has run.
func (d *detailModel) tick() {
	if d.task != nil && inFlight(d.task.State) {
		d.render()
	}
}

// noResults says why a task shows no result: one still coming, or none to
// come.
func noResults(state string) string {
	switch {
	case inFlight(state):
		return "none yet"
	case state == api.StateSuccess:
		return "none reported by the service"
	case state == unknownOutcome:
		return "none known: the request's answer never came"
	case state == record.StateRejected:
		return "none: the request was not taken, so no task was made"
	case state == record.StateAbandoned:
		return "none: the request was abandoned"
	}
	return "none: the task " + stateLabel(state) + " without a result"
}

// offPeakLine promises a date only while the task can still be generated.
func offPeakLine(t record.Task) string {
	switch {
	case inFlight(t.State):
		return "off-peak: generated by " + t.OffPeakDeadline.Local().Format("Jan 2 15:04")
	case t.State == api.StateSuccess:
		return "off-peak: generated"
	}
	return "off-peak: ended without being generated"
}

// savedFile is the first result saved on disk.
func (d *detailModel) savedFile() string {
	for _, dl := range d.downloads {
		if dl.Status == record.DownloadDone && dl.Path != "" {
			return dl.Path
		}
	}
	return ""
}

// allSaved reports whether every result is saved on disk, and where the
// first is.
func (d *detailModel) allSaved() (string, bool) {
	if d.task == nil || len(d.task.Creations) == 0 {
		return "", false
	}
	first := ""
	for _, c := range d.task.Creations {
		saved := ""
		for _, dl := range d.downloads {
			if dl.Index == c.Index && dl.Kind == record.KindURL && dl.Status == record.DownloadDone && dl.Path != "" {
				saved = dl.Path
			}
		}
		if saved == "" {
			return "", false
		}
		if first == "" {
			first = saved
		}
	}
	return first, true
}

// liveURL is the first result URL not known to be dead.
func (d *detailModel) liveURL() string {
	if d.task == nil {
		return ""
	}
	u, _ := studio.LiveURL(*d.task, d.downloads, d.env.now())
	return u
}

// firstURL is the first result URL, live or not.
func (d *detailModel) firstURL() string {
	if d.task == nil {
		return ""
	}
	for _, c := range d.task.Creations {
		if c.URL != "" {
			return c.URL
		}
	}
	return ""
}

// tickEvery is how soon the detail changes by itself, zero when it does
// not: a download bar steps with the spinner; a task in flight shows how
// long it has run (and its age beside its creation time) in seconds, past
// an hour in minutes.
func (d *detailModel) tickEvery() time.Duration {
	switch {
	case d.task == nil:
		return 0
	case d.downloading():
		return spinnerStep
	case inFlight(d.task.State):
		run := d.env.now().Sub(d.task.CreatedAt)
		unit := time.Second
		if run >= time.Hour {
			unit = time.Minute
		}
		if run < 0 {
			return unit
		}
		return unit - run%unit
	}
	return 0
}

func (d *detailModel) downloading() bool {
	for _, dl := range d.downloads {
		if !dl.Settled() {
			return true
		}
	}
	return false
}

// progressBar drives the terminal's own progress bar (OSC 9;4) while
// results download.
func (d *detailModel) progressBar() *tea.ProgressBar {
	if !d.downloading() {
		return nil
	}
	var got, total int64
	for _, dl := range d.downloads {
		got += dl.Bytes
		total += dl.Total
	}
	if total <= 0 {
		return tea.NewProgressBar(tea.ProgressBarIndeterminate, 0)
	}
	return tea.NewProgressBar(tea.ProgressBarDefault, int(got*100/total))
}

// senderText says who sent a task, from what, on which account, in lines
// of w cells: "sent by ann@studio-1 from the terminal studio · account
// key:1a2b3c4d5e6f", the account going whole to a line of its own when it
// does not fit beside the sender.
func senderText(t record.Task, w int) string {
	var parts []string
	if t.SentBy != "" {
		parts = append(parts, api.CleanLine(t.SentBy))
	}
	if by := originText[t.Origin]; by != "" {
		if len(parts) > 0 {
			by = "from " + by
		}
		parts = append(parts, by)
	}
	if len(parts) == 0 {
		return ""
	}
	text := wrap("sent by "+strings.Join(parts, " "), w)
	if t.Account == "" || t.Account == "sandbox" { // the sandbox is nobody's account
		return text
	}
	account := "account " + api.CleanLine(t.Account)
	text = strings.TrimRight(text, " ")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	if ansi.StringWidth(last+" · "+account) <= w {
		return text + " · " + account
	}
	return text + "\n" + wrap(account, w)
}

var originText = map[record.Origin]string{
	record.OriginTUI: "the terminal studio",
	record.OriginCLI: "a clapper command",
	record.OriginMCP: "an AI agent (clapper mcp)",
}

// rereadTask reads a task from the service now (r on the Tasks page and in
// the detail view): a task given up as lost is followed again, and its
// results downloaded if it succeeded meanwhile.
func rereadTask(e *env, t record.Task) tea.Cmd {
	ctx, s := e.ctx, e.studio
	return func() tea.Msg {
		if err := s.Reread(ctx, t); err != nil {
			return statusMsg{text: "re-reading task " + api.CleanLine(t.TaskID) + ": " + api.CleanLine(err.Error()), bad: true}
		}
		return done("task "+api.CleanLine(t.TaskID)+" re-read from the service", changedTasks)
	}
}

// openChild opens the task a result was sent onward to; of several, it asks
// which, by number (the first nine, as the detail lists them).
func openChild(links []record.Link) tea.Cmd {
	return openLinked(links, "Open which task it was sent onward to?", fmt.Sprintf("It was sent onward %d times.", len(links)))
}

// openParent opens the task a task came from, asking which when several
// results made it (one per field: a video and a speech).
func openParent(links []record.Link) tea.Cmd {
	return openLinked(links, "Open which task it came from?", fmt.Sprintf("It was made of %d tasks' results.", len(links)))
}

// openLinked opens one linked task's detail, asking which when several.
func openLinked(links []record.Link, title, body string) tea.Cmd {
	open := func(id int64) tea.Cmd { return func() tea.Msg { return openDetailMsg{localID: id, chain: true} } }
	if len(links) == 1 {
		return open(links[0].LocalID)
	}
	d := &choiceDialog{title: title}
	d.body = body
	if len(links) > 9 {
		d.body += " The first nine are listed; the Tasks page (/ filter) finds the rest."
	}
	for i, l := range links[:min(len(links), 9)] {
		d.choices = append(d.choices, dialogChoice{
			key:   strconv.Itoa(i + 1),
			label: fmt.Sprintf("#%d %s %s (%s)", l.LocalID, l.Operation, glyph(l.State), api.CleanLine(l.Field)),
			cmd:   open(l.LocalID),
		})
	}
	return func() tea.Msg { return openDialogMsg{d: d} }
}
