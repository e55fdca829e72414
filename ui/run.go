package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

// Run opens the studio for cfg and runs the TUI until the user quits.
func Run(ctx context.Context, cfg studio.Config) error {
	// lipgloss detected the terminal's colours on this same output and
	// environment as it was loaded; Bubble Tea detecting them again would
	// cost a second `tmux info` (4 ms) in tmux before the first frame.
	return runWith(ctx, cfg, tea.WithColorProfile(lipgloss.Writer.Profile))
}

// Frames are drawn at most 120 times a second, not Bubble Tea's 60: a key's
// echo and the first frame each wait half as long for the next frame. Idle,
// the two cost the same within the noise (60 s windows, interleaved): an
// unchanged frame is not drawn.
const framesPerSecond = 120

// draftWait bounds how long quitting waits for the drafts still to be
// written: a few hundred bytes each, so only a hung disk takes it all.
const draftWait = 2 * time.Second

// runWith is Run with the program's options given: the start-to-first-frame
// benchmark reads the frames of the real wiring from its own output.
func runWith(ctx context.Context, cfg studio.Config, opts ...tea.ProgramOption) error {
	// A configuration that cannot run is said before the screen takes over.
	if err := cfg.Check(); err != nil {
		return err
	}
	// Quitting cancels every command still running for any backend.
	signalled := ctx
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	var p *tea.Program
	relays := newRelays(ctx)
	var started sync.Once
	// The studio opens once boot's first frame is due (boot.go), and the
	// root's first reads begin as soon as it is open.
	start := newOpening()
	go func() {
		defer close(start.done)
		select {
		case <-start.due:
		case <-ctx.Done():
			return
		}
		s, err := studio.Open(ctx, cfg, studio.Options{Origin: record.OriginTUI})
		if err != nil {
			start.err = err
			return
		}
		m := newModel(ctx, s, nil, func(s *studio.Studio) { relays.start(s, p) })
		// The studio starts once the first frame has its rows: loading
		// what is in flight, the watcher's first reads and the change
		// watcher would otherwise compete with the one read that frame
		// waits for.
		m.start = func() error {
			var err error
			started.Do(func() { err = s.Start(ctx) })
			return err
		}
		m.readEarly()
		relays.start(s, p)
		start.root = m
	}()
	p = tea.NewProgram(newBoot(cfg, start), append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(framesPerSecond)}, opts...)...)
	final, err := p.Run()
	quit()
	// An opening under way ends (its context is cancelled); a start still
	// running is waited for, and one not yet run never runs.
	<-start.done
	started.Do(func() {})
	relays.stop()
	if b, ok := final.(*boot); ok && b.failed != nil {
		return openFailure(cfg, b.failed) // said as the screen closes
	}
	var closeErr, draftErr error
	if start.root != nil {
		draftErr = start.root.keepDrafts(draftWait)
		// The studio in use at the end (the user may have switched
		// backends).
		closeErr = start.root.env.studio.Close()
	}
	if errors.Is(err, tea.ErrProgramKilled) && signalled.Err() != nil {
		return draftErr
	}
	if err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return errors.Join(draftErr, closeErr)
}

// openFailure is why the studio did not open: a team's history named by
// its URL (never its password), with the way to start on this machine's
// own history instead, since nothing falls back to it silently.
func openFailure(cfg studio.Config, err error) error {
	if !cfg.Team() {
		return err
	}
	if url := studio.RedactURL(cfg.HistoryURL); !strings.Contains(err.Error(), url) {
		err = fmt.Errorf("team history %s: %w", url, err)
	}
	return fmt.Errorf("%w\nto start on this machine's own history instead: clapper --history-url \"\"", err)
}

// keepDrafts writes the drafts the last changes made, before the process
// ends: their commands may not have run when the program stopped (a key
// typed just before ctrl+c), or may be running still.
func (m *Model) keepDrafts(limit time.Duration) error {
	return m.pages[pageNew].(*newPage).writes.flush(limit)
}

// relays pass each studio's events to the program: one goroutine per
// studio, stopped when the studio is replaced, so no event of an old
// backend reaches the screen of the new one.
type relays struct {
	root   context.Context
	cancel context.CancelFunc
}

func newRelays(root context.Context) *relays { return &relays{root: root} }

func (r *relays) start(s *studio.Studio, p *tea.Program) {
	r.stop()
	ctx, cancel := context.WithCancel(r.root)
	r.cancel = cancel
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-s.Events():
				p.Send(studioEventMsg{ev})
			case <-s.Changes():
				p.Send(historyChangedMsg{})
			}
		}
	}()
}

func (r *relays) stop() {
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
}

// onSettingsSaved applies saved settings: a new theme at once; anything
// else restarts the studio on the new configuration (another backend opens
// its own history).
func (m *Model) onSettingsSaved(msg settingsSavedMsg) tea.Cmd {
	m.pages[pageSettings].(*settingsPage).saved()
	old := m.env.studio
	if old.Config.Runs(msg.cfg) {
		old.Config.Theme, old.Config.Saved = msg.cfg.Theme, msg.cfg.Saved
		m.applyTheme()
		m.pages[pageSettings].(*settingsPage).reopen()
		return status("settings saved in " + msg.path)
	}
	cfg, root := msg.cfg, m.env.root
	return func() tea.Msg {
		s, err := studio.Open(root, cfg, studio.Options{Origin: record.OriginTUI})
		if err == nil {
			if err = s.Start(root); err != nil {
				s.Close()
			}
		}
		return studioOpenedMsg{s: s, err: err}
	}
}

// onStudioOpened swaps the running studio for the new one and reloads
// every screen from its history. Whatever still runs for the old backend is
// cancelled with its context, and the old studio closes in a command.
func (m *Model) onStudioOpened(msg studioOpenedMsg) tea.Cmd {
	if msg.err != nil {
		return statusErrText("could not start on the new settings: " + api.CleanLine(msg.err.Error()) + " (still running on the old ones)")
	}
	old := m.env.studio
	m.env.studio = msg.s
	m.env.renewContext()
	if m.relay != nil {
		m.relay(msg.s)
	}
	m.stack = nil // the old backend's detail, sheet and dialogs
	m.statsLoaded, m.account, m.env.health = false, nil, health{}
	clear(m.stale)
	m.headerStale, m.detailStale = false, false
	m.applyTheme()
	cmds := []tea.Cmd{closeStudio(old), loadStats(m.env), loadAccount(m.env), status(restartedOn(msg.s.Config))}
	for _, p := range m.pages {
		if r, ok := p.(interface{ reopen() tea.Cmd }); ok {
			cmds = append(cmds, r.reopen())
		}
	}
	return tea.Batch(cmds...)
}

// restartedOn says what a restart runs on: the backend and the history, as
// a switch of either restarts (a new team history read "now running on
// sandbox" alone).
func restartedOn(cfg studio.Config) string {
	return "now running on " + cfg.Backend() + " · history " + cfg.HistoryName()
}

// closeStudio stops an old backend's background work and releases it.
func closeStudio(s *studio.Studio) tea.Cmd {
	return func() tea.Msg {
		if err := s.Close(); err != nil {
			return statusMsg{text: "closing the previous backend: " + api.CleanLine(err.Error()), bad: true}
		}
		return nil
	}
}
