// Package ui is clapper's terminal UI: an app shell (header, page tabs,
// status line, help) around one small model per page (Tasks, New, Scenes,
// Voices, History, Settings) and the task detail, all fed by messages from
// the studio. The root only routes messages and lays screens out; each
// screen has its own file and KeyMap; View never does I/O.
//
// Key routing, in order: an open dialog takes every key; a screen typing
// text (a filter, a settings field) takes keys before the global bindings,
// so `q` typed into a filter never quits; then the global keys; then the
// screen.
package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
	"clapper/ui/preview"
)

// page is one tab of the shell.
type page interface {
	Title() string
	Init() tea.Cmd
	Update(tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	// Capturing reports whether the page is taking typed text, so global
	// keys must not fire.
	Capturing() bool
	Help() help.KeyMap
}

const (
	pageTasks = iota
	pageNew
	pageScenes
	pageVoices
	pageHistory
	pageSettings
)

// pageTitles name the tabs; boot draws them before the pages exist.
var pageTitles = [...]string{pageTasks: "Tasks", pageNew: "New", pageScenes: "Scenes", pageVoices: "Voices", pageHistory: "History", pageSettings: "Settings"}

type globalKeys struct {
	Quit, Help, Next, Prev, New, Jump, Message key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help: key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("?", "help")),
		Next: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next page")),
		Prev: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous page")),
		New:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new task")),
		Jump: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6"), key.WithHelp("1-6", "jump to page")),
		// A status line is one row: a longer message ends in "… ! all".
		Message: key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "last message in full")),
	}
}

// Model is the root of the TUI.
type Model struct {
	env    *env
	keys   globalKeys
	help   help.Model
	pages  []page
	active int
	// stack is what stands over the page, top last (overlays.go).
	stack []layer
	// detailBack are the details a walk along a send-onward chain (p, >)
	// left, the latest last: esc goes back through them.
	detailBack []int64

	width, height int
	terminalDark  bool
	showHelp      bool

	statusText string
	statusBad  bool
	// lastStatus is the latest message, kept after the status line
	// clears; messages are the latest few, which ! shows in full.
	lastStatus string
	messages   messageLog
	statusSeq  int

	running, queued int
	creditsToday    int64
	statsLoaded     bool
	// account is the live service's own count (account.go); nil until read.
	account     *api.Credits
	accountSoon bool // a read after a change is due (account.go)

	// The change pipeline (changes.go): pages marked stale re-read when
	// shown; the header and the detail at the next flush.
	stale                    []reread
	headerStale, detailStale bool
	sheetStale               bool // the contact sheet reloads at the frame
	flushing                 bool
	// rowsToRead are the tasks whose rows events changed since the last
	// flush, read together then (one query a frame).
	rowsToRead map[string]rowRead

	// submitting counts requests sent and not yet answered: quitting then
	// asks first.
	submitting int
	// held are the keys typed while a read that opens a dialog runs
	// (readingDialog); holding says such a read runs.
	held    []tea.KeyPressMsg
	holding bool
	// nextImageID numbers the kitty images transmitted.
	nextImageID int

	kittyProbe *preview.Kitty
	// afterFirstRows holds the hidden pages' first reads (and the
	// studio's start) until the frame with the Tasks list's rows is drawn:
	// on a 2-core machine they would otherwise compete with the one read
	// that frame waits for, and then with drawing it.
	afterFirstRows []tea.Cmd
	// start, when set (Run), starts the studio after the first rows.
	start func() error
	// early, when set (readEarly), stands for the first rows' reads, begun
	// before the root took over.
	early tea.Cmd
	// notify is how the terminal shows a notification (announce), and
	// notified when it last did.
	notify   notifyStyle
	notified time.Time
	// chrome and fitting spare a frame what the last one drew: a tick
	// draws the body alone, and measures only lines it has not drawn.
	chrome   chrome
	fitting  fitting
	ticking  bool
	tickDue  time.Time
	tickGen  int
	relay    func(*studio.Studio)
	quitting bool
}

// New builds the root model on a started studio (or one its start field
// starts after the first rows, as Run does). now is the clock the
// screens show time with (tests fix it); relay, when set, connects a studio's
// events to the program (Run sets it).
func New(s *studio.Studio, now func() time.Time, relay func(*studio.Studio)) *Model {
	return newModel(context.Background(), s, now, relay)
}

// newModel is New under root, the program's context: every command's
// context descends from it.
func newModel(root context.Context, s *studio.Studio, now func() time.Time, relay func(*studio.Studio)) *Model {
	if now == nil {
		now = time.Now
	}
	e := &env{studio: s, now: now, theme: ThemeFor(s.Config.Theme, true), timers: realTimers{}, root: root,
		answerWithin: accountAnswerWithin}
	e.renewContext()
	m := &Model{env: e, keys: newGlobalKeys(), help: help.New(), relay: relay, terminalDark: true, notify: detectNotify(os.Getenv)}
	m.help.Styles = e.theme.Help
	m.pages = []page{
		newTasksPage(e),
		newNewPage(e),
		newScenesPage(e),
		newVoicesPage(e),
		newHistoryPage(e),
		newSettingsPage(e),
	}
	m.stale = make([]reread, len(m.pages))
	return m
}

func (m *Model) Init() tea.Cmd {
	first := m.early
	if first == nil {
		first = m.firstReads()
	}
	cmds := []tea.Cmd{first, tea.RequestBackgroundColor, loadAccount(m.env)}
	if w := m.env.studio.Config.Warnings; len(w) > 0 {
		// What resolving the configuration found (a catalog file not
		// used): printed before the screen took over, so said again here.
		cmds = append(cmds, statusErrText(api.CleanLine(strings.Join(w, " · "))))
	}
	if k, ok := preview.DetectKitty(os.Getenv); ok {
		// Only a terminal that answers gets pixels; the others keep
		// half-blocks and never see another kitty sequence.
		m.kittyProbe = &k
		cmds = append(cmds, tea.Raw(k.Query()))
	}
	if m.start != nil {
		if m.active == pageTasks {
			// Loading what is in flight and the watcher's first reads
			// begin once the frame with the rows is drawn: until then
			// they would compete with drawing it.
			m.afterFirstRows = append(m.afterFirstRows, m.startStudio())
		} else {
			cmds = append(cmds, m.startStudio())
		}
	}
	for i, p := range m.pages {
		switch {
		case i == m.active:
			// Its reads are the first frame's (firstReads).
		case i == pageHistory || i == pageScenes:
			// Lists only their page shows: read when it is shown, so the
			// first frame's rows do not wait behind them.
			m.stale[i] = rereadAll
		case m.active == pageTasks:
			m.afterFirstRows = append(m.afterFirstRows, own(owner(i), p.Init()))
		default:
			cmds = append(cmds, own(owner(i), p.Init()))
		}
	}
	return tea.Batch(cmds...)
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tickMsg); !ok {
		m.chrome.valid = false
	}
	cmd := m.update(msg)
	return m, tea.Batch(cmd, m.scheduleTick())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	from := ownerNone
	if o, ok := msg.(owned); ok {
		from, msg = o.to, o.msg
	}
	if cmd, ok := m.onTerminal(msg); ok {
		return cmd
	}
	if cmd, ok := m.onStatus(msg); ok {
		return cmd
	}
	if cmd, ok := m.onBackend(msg); ok {
		return cmd
	}
	if cmd, ok := m.onNavigation(msg, from); ok {
		return cmd
	}
	return m.route(msg, from)
}

// onTerminal takes the messages of the terminal and the frame: sizes,
// colours, replies, ticks, flushes, keys and pastes; ok is false for any
// other.
func (m *Model) onTerminal(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		if m.sheet() != nil {
			return m.sheet().reload(), true // thumbnails for the box the new size fits
		}
		return nil, true
	case rowsDrawnMsg:
		return tea.Batch(msg.then...), true
	case tea.BackgroundColorMsg:
		m.terminalDark = msg.IsDark()
		m.applyTheme()
		return nil, true
	case uv.KittyGraphicsEvent:
		if m.kittyProbe != nil && preview.IsKittyReply(msg) {
			m.env.kitty = m.kittyProbe
		}
		return nil, true
	case tickMsg:
		if msg.gen != m.tickGen {
			return nil, true
		}
		m.ticking = false
		m.env.frame++
		if m.detail() != nil {
			m.detail().tick()
		}
		return nil, true
	case flushMsg:
		return m.flush(), true
	case imageWantedMsg:
		if m.detail() == nil || m.detail().localID != msg.localID || m.env.kitty == nil {
			return nil, true
		}
		m.nextImageID++
		return m.detail().transmit(*m.env.kitty, m.nextImageID), true
	case tea.KeyPressMsg:
		return m.onKey(msg), true
	case tea.PasteMsg:
		if m.dialog() != nil {
			return m.toDialog(msg), true
		}
		// Pasted text belongs to the screen in front, never to a kept form.
		return m.toScreen(msg), true
	case quitConfirmedMsg:
		return m.leave(), true
	}
	return nil, false
}

// onStatus takes the messages of what the header and the status line show;
// ok is false for any other.
func (m *Model) onStatus(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case usualLoadedMsg:
		if msg.err == nil {
			if m.env.usual == nil {
				m.env.usual = map[usualKey]record.Usual{}
			}
			m.env.usual[msg.key] = msg.usual
			if m.detail() != nil {
				m.detail().render()
			}
		}
		return nil, true
	case statusMsg:
		m.statusSeq++
		m.statusText, m.statusBad = msg.text, msg.bad
		m.lastStatus = msg.text
		m.messages.add(msg.text, msg.bad, m.env.now())
		cmds := []tea.Cmd{m.env.timers.after(6*time.Second, statusExpiredMsg{m.statusSeq})}
		if msg.changed != 0 {
			cmds = append(cmds, m.mark(msg.changed))
		}
		return tea.Batch(cmds...), true
	case statusExpiredMsg:
		if msg.seq == m.statusSeq {
			m.statusText = ""
		}
		return nil, true
	case statsLoadedMsg:
		if msg.err == nil {
			m.running, m.queued, m.creditsToday, m.statsLoaded = msg.running, msg.queued, msg.creditsToday, true
		}
		return nil, true
	case accountLoadedMsg, accountDueMsg, accountSoonMsg:
		return m.onAccount(msg), true
	}
	return nil, false
}

// onBackend takes the messages of the backend: its events, the history's
// changes, sends and a switch of settings; ok is false for any other.
func (m *Model) onBackend(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case studioEventMsg:
		return tea.Batch(m.onStudioEvent(msg), m.readAccountSoon()), true
	case historyChangedMsg:
		// Another process wrote: anything may have changed.
		return tea.Batch(m.mark(changedAll), m.readAccountSoon()), true
	case rowsReadMsg:
		return m.onRowsRead(msg), true
	case submitStartedMsg:
		m.submitting++
		send := msg.send
		return func() tea.Msg { return submitEndedMsg{answer: send()} }, true
	case submitEndedMsg:
		m.submitting--
		// The send wrote its request and its outcome to history, this
		// process's own writes, which no change of another process
		// announces: a refusal or an answer that never came is listed
		// (the Tasks page said "No tasks yet." over one of unknown outcome).
		return tea.Batch(m.update(msg.answer), m.mark(changedTasks)), true
	case settingsSavedMsg:
		return m.onSettingsSaved(msg), true
	case studioOpenedMsg:
		return m.onStudioOpened(msg), true
	}
	return nil, false
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.holding && msg.String() != "ctrl+c" {
		m.held = append(m.held, msg)
		return nil
	}
	if m.dialog() != nil {
		return m.toDialog(msg)
	}
	screenTyping := m.capturing()
	if m.showHelp && (msg.String() == "esc" || key.Matches(msg, m.keys.Help)) {
		m.showHelp = false
		return nil
	}
	if screenTyping {
		switch msg.String() {
		case "ctrl+c":
			return m.quit()
		case "f1":
			// ? is text in an input; f1 still shows every key.
			m.showHelp = true
			return nil
		}
		m.showHelp = false // as below
		return m.toScreen(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m.quit()
	case key.Matches(msg, m.keys.Help):
		m.showHelp = !m.showHelp
		return nil
	case key.Matches(msg, m.keys.Next):
		return m.switchTo((m.active + 1) % len(m.pages))
	case key.Matches(msg, m.keys.Prev):
		return m.switchTo((m.active + len(m.pages) - 1) % len(m.pages))
	case key.Matches(msg, m.keys.Jump):
		return m.switchTo(int(msg.String()[0] - '1'))
	case key.Matches(msg, m.keys.New):
		return m.switchTo(pageNew)
	case key.Matches(msg, m.keys.Message):
		m.openDialog(&messageDialog{log: m.messages, height: m.height}, ownerNone)
		return nil
	}
	// The screen's keys close the help first and act where they are seen:
	// one acting under the help (a dialog opened over it, whose esc then
	// seemed to go back a step to the help) is an action unseen.
	m.showHelp = false
	if m.detail() != nil && msg.String() == "esc" {
		if n := len(m.detailBack); n > 0 {
			back := m.detailBack[n-1]
			m.detailBack = m.detailBack[:n-1]
			return m.showDetail(back)
		}
		if m.sheet() != nil {
			return tea.Batch(m.closeDetail(), m.sheet().reload())
		}
		return tea.Batch(m.closeDetail(), m.refreshShown())
	}
	if m.detail() == nil && m.sheet() != nil && key.Matches(msg, m.sheet().keys.Back) {
		m.dropSheet()
		return m.refreshShown()
	}
	return m.toScreen(msg)
}

func (m *Model) quit() tea.Cmd {
	if n := m.env.studio.SetsWaiting(); n > 0 && m.dialog() == nil {
		m.openDialog(&confirmDialog{
			title: fmt.Sprintf("Quit with %d versions still waiting here?", n),
			body:  "They wait for room at the service (at most five run at once) and were never sent: quitting leaves them unsent, marked so on their set's contact sheet. What was sent goes on and is followed next time.",
			onYes: func() tea.Msg { return quitConfirmedMsg{} },
		}, ownerNone)
		return nil
	}
	if m.submitting > 0 {
		m.openDialog(&confirmDialog{
			title: "Quit while a request is being sent?",
			body:  "Its answer has not come back yet. History keeps it either way: if the answer is lost it shows as of unknown outcome, for you to resolve.",
			onYes: func() tea.Msg { return quitConfirmedMsg{} },
		}, ownerNone)
		return nil
	}
	if p, ok := m.pages[pageScenes].(*scenesPage); ok && p.editor != nil && p.editor.prompt != nil && p.editor.prompt.edited() && m.dialog() == nil {
		// A scene's prompt edited is kept nowhere until sent.
		m.openDialog(&confirmDialog{
			title: fmt.Sprintf("Quit without sending the edit of scene %d?", p.editor.prompt.scene+1),
			body:  "The prompt typed in the scene editor is not sent nor kept: quitting drops it.",
			onYes: func() tea.Msg { return quitConfirmedMsg{} },
		}, ownerNone)
		return nil
	}
	if p, ok := m.pages[pageSettings].(*settingsPage); ok && p.dirty() && m.dialog() == nil {
		// The settings edited are kept nowhere until saved: quitting would
		// drop them unasked.
		m.openDialog(&confirmDialog{
			title: "Quit without saving the settings?",
			body:  "The Settings page has changes that are not saved: quitting discards them. To keep them, answer no, open Settings (6) and press s.",
			onYes: func() tea.Msg { return quitConfirmedMsg{} },
		}, ownerNone)
		return nil
	}
	return m.leave()
}

// leave ends the program, cancelling whatever still runs for the backend.
func (m *Model) leave() tea.Cmd {
	m.quitting = true
	m.env.cancel()
	return tea.Quit
}

func statusErrText(s string) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: s, bad: true} }
}

func (m *Model) applyTheme() {
	m.env.theme = ThemeFor(m.env.studio.Config.Theme, m.terminalDark)
	m.help.Styles = m.env.theme.Help
}

const headerHeight, footerHeight = 3, 2

func (m *Model) layout() {
	h := max(m.height-headerHeight-footerHeight, 1)
	for _, p := range m.pages {
		p.SetSize(m.width, h)
	}
	for _, l := range m.stack {
		if l.screen != nil {
			l.screen.SetSize(m.width, h)
		}
	}
	m.help.SetWidth(m.width)
	if p, ok := m.dialog().(*onwardPicker); ok {
		p.screenH = m.height
	}
}

// minWidth and minHeight are the smallest terminal clapper lays out in;
// below it the screen says so rather than draw a broken page.
const minWidth, minHeight = 60, 16

// typingHelpKey and typingQuitKey are the global keys that work while keys
// are text.
var (
	typingHelpKey = key.NewBinding(key.WithKeys("f1"), key.WithHelp("f1", "all keys"))
	typingQuitKey = key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit"))
)
