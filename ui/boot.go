package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

// The program's first model. The first frame waits for nothing: opening
// the studio (the history and the embedded sandbox) takes 2 ms on a large
// history and 60 ms on the first start, when the history is created, and a
// frame drawn while it opens would share the CPU with it. So the program
// starts on boot, which draws the screen's frame (the header, the tabs, the
// task list's columns) and, once that frame is drawn, has the studio
// opened; the root takes over with the messages that came meanwhile, and
// its rows follow two frames later.

// boot draws the frame of the screen until the root is ready.
type boot struct {
	cfg           studio.Config
	start         *opening
	width, height int
	theme         *Theme
	frame         string // what View shows (draw)
	quit          key.Binding
	// failed is why the studio did not open; the program then ends.
	failed error
	// slow: the studio has taken longer than slowOpen to open; the frame
	// says what it waits for.
	slow bool
	// held are the messages for the root, in their order: the terminal's
	// size and colours, keys typed early, the studio's first events.
	held []tea.Msg
}

// opening is the root being made: runWith opens the studio once due is
// closed, and closes done when root or err is set.
type opening struct {
	due, done chan struct{}
	root      *Model
	err       error
}

func newOpening() *opening {
	return &opening{due: make(chan struct{}), done: make(chan struct{})}
}

// openDueMsg says the first frame is drawn: the studio opens now.
type openDueMsg struct{}

// rootReadyMsg says the opening ended.
type rootReadyMsg struct{}

// openSlowMsg says the studio has not opened within slowOpen of the first
// frame.
type openSlowMsg struct{}

// slowOpen is how long the studio opens before the frame says it waits: a
// history file opens in milliseconds, and a team's database that accepts
// a connection and never answers holds the start for its whole timeout.
const slowOpen = 300 * time.Millisecond

func newBoot(cfg studio.Config, start *opening) *boot {
	return &boot{cfg: cfg, start: start, theme: ThemeFor(cfg.Theme, true), quit: newGlobalKeys().Quit}
}

func (b *boot) Init() tea.Cmd {
	// Bubble Tea started its frame ticker just before Init: the first
	// frame is drawn one frame from now, in a millisecond or two, and the
	// studio opens half a frame later. The colour is asked here too, for
	// that frame's theme.
	return tea.Batch(tea.RequestBackgroundColor,
		tea.Tick(3*time.Second/framesPerSecond/2, func(time.Time) tea.Msg { return openDueMsg{} }),
		tea.Tick(3*time.Second/framesPerSecond/2+slowOpen, func(time.Time) tea.Msg { return openSlowMsg{} }))
}

func (b *boot) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case openDueMsg:
		close(b.start.due)
		done := b.start.done
		return b, func() tea.Msg { <-done; return rootReadyMsg{} }
	case openSlowMsg:
		b.slow = true
		b.draw()
		return b, nil
	case rootReadyMsg:
		if b.start.err != nil {
			b.failed = b.start.err
			return b, tea.Quit
		}
		m := b.start.root
		cmds := []tea.Cmd{m.Init()}
		for _, held := range b.held {
			_, cmd := m.Update(held)
			cmds = append(cmds, cmd)
		}
		return m, tea.Batch(cmds...)
	case tea.KeyPressMsg:
		if key.Matches(msg, b.quit) {
			return b, tea.Quit // nothing is under way yet
		}
	case tea.WindowSizeMsg:
		b.width, b.height = msg.Width, msg.Height
		b.draw()
	case tea.BackgroundColorMsg:
		b.theme = ThemeFor(b.cfg.Theme, msg.IsDark())
		b.draw()
	}
	b.held = append(b.held, msg)
	return b, nil
}

// View is the root's frame with nothing read yet: the header without its
// counts, the Tasks tab lit, the list's columns. Drawn once per size and
// theme: Bubble Tea asks for it after every message. The rule under the
// tabs comes with the root's frame: its character is the first on screen
// above U+0300, and the first such width the terminal renderer measures
// builds its table of widths, a millisecond and a half, which would make
// this frame cost half as much again as a one-line program's.
func (b *boot) View() tea.View {
	v := tea.NewView(b.frame)
	v.AltScreen = true
	v.WindowTitle = "clapper"
	return v
}

// draw makes the frame anew for the size and theme.
func (b *boot) draw() {
	b.frame = ""
	if b.width < minWidth || b.height < minHeight {
		return // the root says what size it needs
	}
	th := b.theme
	b.frame = headerLine(th, b.cfg, b.width, "", record.Reach{Up: true}, nil) + "\n" +
		tabLine(th, pageTitles[:], pageTasks, b.width) + "\n\n" +
		layoutColumns(b.width, b.cfg.Team()).header(th)
	if b.slow {
		what, where := "Opening the history", b.cfg.HistoryPath()
		if b.cfg.Team() {
			what, where = "Connecting to the team history", studio.RedactURL(b.cfg.HistoryURL)
		}
		b.frame += "\n\n" + th.Dim.Render("  "+what+" (q quits)\n  "+textutil.Truncate(api.CleanLine(where), b.width-4))
	}
}
