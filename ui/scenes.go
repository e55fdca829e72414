package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

type scenesKeys struct {
	Up, Down, Open key.Binding
}

func newScenesKeys() scenesKeys {
	return scenesKeys{
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "edit scenes")),
	}
}

func (k scenesKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Open, k.Up, k.Down} }
func (k scenesKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Up, k.Down, k.Open}} }

// scenesPage lists the multi-scene jobs; enter opens one in the scene
// editor, which then has the page until esc.
type scenesPage struct {
	env    *env
	keys   scenesKeys
	jobs   []record.JobSummary
	err    error
	cursor int
	editor *sceneEditor

	width, height int
}

type jobsLoadedMsg struct {
	jobs []record.JobSummary
	err  error
}

// composedSavedMsg reports compositions saved automatically.
type composedSavedMsg struct {
	jobID string
	paths []string
	err   error
}

// jobListLimit bounds the list: multi-scene jobs are few, and the history
// keeps them all.
const jobListLimit = 500

func newScenesPage(e *env) *scenesPage { return &scenesPage{env: e, keys: newScenesKeys()} }

func (p *scenesPage) Title() string { return pageTitles[pageScenes] }
func (p *scenesPage) Init() tea.Cmd { return p.refresh() }

// Capturing: the editor's prompt takes every key while it is open.
func (p *scenesPage) Capturing() bool { return p.editor != nil && p.editor.Capturing() }

func (p *scenesPage) Help() help.KeyMap {
	if p.editor != nil {
		return p.editor.Help()
	}
	k := p.keys
	k.Open.SetEnabled(len(p.jobs) > 0)
	k.Up.SetEnabled(len(p.jobs) > 1)
	k.Down.SetEnabled(len(p.jobs) > 1)
	return k
}

func (p *scenesPage) SetSize(w, h int) {
	p.width, p.height = w, h
	if p.editor != nil {
		p.editor.SetSize(w, h)
	}
}

// reopen points the page at a new studio's history.
func (p *scenesPage) reopen() tea.Cmd {
	p.editor, p.jobs, p.cursor = nil, nil, 0
	return p.refresh()
}

func (p *scenesPage) shows() changes { return changedJobs }

func (p *scenesPage) refresh() tea.Cmd {
	ctx, svc := p.env.ctx, p.env.studio.Scenes()
	cmds := []tea.Cmd{func() tea.Msg {
		jobs, err := svc.Jobs(ctx, jobListLimit)
		return jobsLoadedMsg{jobs, err}
	}}
	if p.editor != nil {
		cmds = append(cmds, p.editor.refresh())
	}
	return tea.Batch(cmds...)
}

func (p *scenesPage) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case jobsLoadedMsg:
		p.jobs, p.err = msg.jobs, msg.err
		p.cursor = min(p.cursor, max(len(p.jobs)-1, 0))
		return nil
	case composedSavedMsg:
		switch {
		case msg.err != nil:
			return statusErr(fmt.Errorf("saving a composition of job %s: %w", msg.jobID, msg.err))
		case len(msg.paths) > 0:
			text := "saved the composed video " + api.CleanLine(strings.Join(msg.paths, ", "))
			return func() tea.Msg { return done(text, changedJobs) }
		}
		return nil
	case sceneSentMsg:
		if msg.err != nil {
			return statusErr(msg.err)
		}
		text := msg.text
		return func() tea.Msg { return done(text, changedJobs) }
	case sceneEditorClosedMsg:
		p.editor = nil
		return p.refresh()
	case tea.KeyPressMsg:
		if p.editor != nil {
			return p.editor.Update(msg)
		}
		return p.onKey(msg)
	}
	if p.editor != nil {
		return p.editor.Update(msg)
	}
	return nil
}

// jobEvent is the watcher's news of a multi-scene job (the root marks the
// job list): a job that finished has its compositions saved.
func (p *scenesPage) jobEvent(ev studio.Event) tea.Cmd { return p.autoDownload(ev.TaskID) }

// autoDownload saves the compositions of a job that finished and are not
// saved yet, when auto-download is on.
func (p *scenesPage) autoDownload(jobID string) tea.Cmd {
	if !p.env.studio.Config.AutoDownload || jobID == "" {
		return nil
	}
	ctx, svc := p.env.ctx, p.env.studio.Scenes()
	return func() tea.Msg {
		paths, err := svc.AutoDownload(ctx, jobID)
		return composedSavedMsg{jobID: jobID, paths: paths, err: err}
	}
}

func (p *scenesPage) onKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.keys.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, p.keys.Down):
		p.cursor = min(p.cursor+1, max(len(p.jobs)-1, 0))
	case key.Matches(msg, p.keys.Open) && len(p.jobs) > 0:
		p.editor = newSceneEditor(p.env, p.jobs[p.cursor].JobID)
		p.editor.SetSize(p.width, p.height)
		return p.editor.Init()
	}
	return nil
}

func (p *scenesPage) View() string {
	if p.editor != nil {
		return p.editor.View()
	}
	th := p.env.theme
	var b strings.Builder
	// The title's words go to a line of their own on a narrow screen,
	// rather than past its edge.
	title := []string{th.Title.Render("Multi-scene jobs"), th.Dim.Render("general_one_click: scenes you edit and recompose")}
	b.WriteString(indent(flowParts(title, "  ", p.width-1), 1) + "\n\n")
	if p.err != nil {
		b.WriteString(th.Error.Render(" Could not read the jobs: "+api.CleanLine(p.err.Error())) + "\n")
		return b.String()
	}
	if len(p.jobs) == 0 {
		w := max(p.width-4, 20)
		b.WriteString(indent(wrap("No multi-scene job yet. Create one on the New page (general_one_click), or from the command line:", w), 1) + "\n\n")
		b.WriteString(th.Key.Render("   clapper create general_one_click -f job.json --wait") + "\n")
		b.WriteString(th.Key.Render("   clapper scenes JOB_ID") + th.Dim.Render("   reads a job made elsewhere") + "\n")
		return b.String()
	}
	promptW := max(p.width-64, 10) // room for an age of up to 5 cells
	b.WriteString(th.Dim.Render(fmt.Sprintf("   %-20s %-14s %6s %8s  %-*s %s", "JOB", "STATE", "SCENES", "VERSIONS", promptW, "PROMPT", "AGE")) + "\n")
	rows := max(p.height-3, 1)
	first := max(0, p.cursor-rows+1)
	now := p.env.now()
	for i := first; i < len(p.jobs) && i < first+rows; i++ {
		j := p.jobs[i]
		state := j.State
		label := stateLabel(state)
		if j.Busy > 0 && api.IsTerminal(state) {
			state, label = api.StateProcessing, "editing"
		}
		line := fmt.Sprintf("%-20s %s %6d %8d  %s %s", textutil.Fit(api.CleanLine(j.JobID), 20),
			stateStyle(th, state)(textutil.Fit(glyph(state)+" "+label, 14)), j.Scenes, j.Versions, textutil.Fit(api.CleanLine(j.Prompt), promptW), age(now, j.CreatedAt))
		if i == p.cursor {
			b.WriteString(th.Marker.Render("▌ ") + th.Selected.Render(line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}
