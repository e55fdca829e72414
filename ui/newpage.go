package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/history"
)

type newKeys struct{ Up, Down key.Binding }

func (k newKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Up, k.Down} }
func (k newKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Up, k.Down}} }

// newPage lists the fourteen operations with what each makes and its
// models. Until the model-aware forms land it shows, for the chosen
// operation, the command that creates one, and for a duplicated task the
// request saved as a file with the command that sends it again.
type newPage struct {
	env    *env
	keys   newKeys
	cursor int
	width  int
	height int

	dupFrom  *history.Task
	dupFile  string
	dupError string
}

type duplicateSavedMsg struct {
	task history.Task
	path string
	err  error
}

func newNewPage(e *env) *newPage {
	return &newPage{env: e, keys: newKeys{
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous operation")),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next operation")),
	}}
}

func (p *newPage) Title() string           { return "New" }
func (p *newPage) Init() tea.Cmd           { return nil }
func (p *newPage) Capturing() bool         { return false }
func (p *newPage) Help() help.KeyMap       { return p.keys }
func (p *newPage) SetSize(w, h int)        { p.width, p.height = w, h }
func (p *newPage) selected() api.Operation { return api.Operations()[p.cursor] }

func (p *newPage) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case duplicateMsg:
		for i, op := range api.Operations() {
			if op == msg.task.Operation {
				p.cursor = i
			}
		}
		return saveDuplicate(p.env.studio.Config.DataDir, msg.task)
	case duplicateSavedMsg:
		t := msg.task
		p.dupFrom, p.dupFile, p.dupError = &t, msg.path, ""
		if msg.err != nil {
			p.dupError = clean(msg.err.Error())
		}
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, p.keys.Up):
			p.cursor = (p.cursor + len(api.Operations()) - 1) % len(api.Operations())
			p.dupFrom = nil
		case key.Matches(msg, p.keys.Down):
			p.cursor = (p.cursor + 1) % len(api.Operations())
			p.dupFrom = nil
		}
	}
	return nil
}

// saveDuplicate writes the task's request (data URIs were stripped from
// history; their places are named) to <data>/drafts for `clapper create -f`.
func saveDuplicate(dataDir string, t history.Task) tea.Cmd {
	return func() tea.Msg {
		dir := filepath.Join(dataDir, "drafts")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return duplicateSavedMsg{task: t, err: err}
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-from-%d.json", t.Operation, t.LocalID))
		err := os.WriteFile(path, t.Request, 0o600)
		return duplicateSavedMsg{task: t, path: path, err: err}
	}
}

func (p *newPage) View() string {
	th := p.env.theme
	ops := api.Operations()
	listW := 20
	var left strings.Builder
	for i, op := range ops {
		line := fit(string(op), listW-2)
		if i == p.cursor {
			left.WriteString(th.Marker.Render("▌") + th.Selected.Render(" "+line) + "\n")
		} else {
			left.WriteString("  " + line + "\n")
		}
	}
	right := p.detail(max(p.width-listW-3, 20))
	return joinColumns(left.String(), right, listW)
}

func (p *newPage) detail(w int) string {
	th := p.env.theme
	op := p.selected()
	info := catalog.Info(op)
	var b strings.Builder
	b.WriteString(th.Title.Render(string(op)) + "\n" + wrap(info.Title, w) + "\n")
	if len(info.Models) > 0 {
		b.WriteString(th.Dim.Render("models: ") + wrapIndent(strings.Join(info.Models, ", "), w-8, 8) + "\n")
	}
	b.WriteString("\n")
	if p.dupFrom != nil {
		b.WriteString(th.Section.Render(fmt.Sprintf("Duplicate of request #%d", p.dupFrom.LocalID)) + "\n")
		if p.dupError != "" {
			b.WriteString(th.Error.Render("could not save it: "+p.dupError) + "\n")
		} else {
			b.WriteString(wrap("Every value of that request is saved in "+p.dupFile+". Edit it if you like, then send it:", w) + "\n\n")
			b.WriteString(th.Key.Render(indent(wrap("clapper create "+string(op)+" -f "+p.dupFile, w-4), 2)) + "\n")
			if len(p.dupFrom.Media) > 0 {
				b.WriteString("\n" + th.Warning.Render(wrap(fmt.Sprintf("%d local media file(s) were sent as data URIs and are not kept in history; set those fields again with --set field=FILE.", len(p.dupFrom.Media)), w)) + "\n")
			}
		}
		return b.String()
	}
	b.WriteString(wrap("The form for this operation (fields, defaults and options that follow the chosen model, checked as you type) comes with the next release. Today the command line creates it with the same rules, and the task shows on the Tasks page at once:", w) + "\n\n")
	b.WriteString(th.Key.Render("  clapper models "+string(op)) + "\n")
	b.WriteString(th.Key.Render(indent(wrap(exampleCommand(op), w-4), 2)) + "\n\n")
	b.WriteString(th.Dim.Render(wrap("Or open a task on the Tasks page and press e to duplicate its request.", w)))
	return b.String()
}

func exampleCommand(op api.Operation) string {
	cmd := "clapper create " + string(op)
	if m := catalog.Models(op); len(m) > 0 {
		cmd += " --set model=" + m[0]
	}
	switch op {
	case api.OpText2Video, api.OpReference2Image:
		cmd += " --set prompt='a red fox in fresh snow'"
	case api.OpAudioTTS:
		cmd += " --set text='Hello there' --set voice_setting_voice_id=narrator_01"
	default:
		cmd += " --set field=value …"
	}
	return cmd
}

// joinColumns puts left (of width lw) and right side by side, line by line.
func joinColumns(left, right string, lw int) string {
	ll := strings.Split(strings.TrimRight(left, "\n"), "\n")
	rl := strings.Split(strings.TrimRight(right, "\n"), "\n")
	n := max(len(ll), len(rl))
	var b strings.Builder
	for i := range n {
		l, r := "", ""
		if i < len(ll) {
			l = ll[i]
		}
		if i < len(rl) {
			r = rl[i]
		}
		b.WriteString(fit(l, lw) + " │ " + r)
		if i < n-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
