package ui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/internal/editor"
	"clapper/record"
	"clapper/scenes"
)

type promptKeys struct {
	Send, Cancel, Editor, Prompts, Undo key.Binding
}

func newPromptKeys() promptKeys {
	return promptKeys{
		Send:    key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "send the edit")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Editor:  key.NewBinding(key.WithKeys("ctrl+e"), key.WithHelp("ctrl+e", "$EDITOR")),
		Prompts: key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "earlier prompts")),
		Undo:    key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "put back the text")),
	}
}

func (k promptKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Cancel, k.Prompts, k.Undo, k.Editor}
}

// Name titles the help while these keys are in force.
func (k promptKeys) Name() string { return "scene prompt" }

func (k promptKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Send, k.Cancel, k.Editor}, {k.Prompts, k.Undo}}
}

// scenePrompt edits one scene's prompt, the version it starts from shown
// beside it (above it on a narrow terminal), with the count of characters
// against the service's limit.
type scenePrompt struct {
	env   *env
	keys  promptKeys
	scene int // index
	from  record.SubJob
	// version is from's number among the scene's versions (v2): the
	// service's id of it is 18 digits nobody reads.
	version int
	area    textarea.Model
	problem string
	// search is ctrl+p's earlier prompts while open; replaced is the text
	// an earlier prompt took the place of, until ctrl+z puts it back or
	// the text is edited.
	search   *promptSearch
	replaced *string

	width, height int
}

func newScenePrompt(e *env, scene, version int, from record.SubJob) *scenePrompt {
	a := textarea.New()
	a.ShowLineNumbers = false
	a.Prompt = ""
	a.CharLimit = 0 // the limit is shown, not enforced by cutting: a paste keeps its end
	a.SetStyles(textarea.DefaultStyles(e.theme.Dark))
	a.SetValue(from.Prompt)
	a.Focus()
	return &scenePrompt{env: e, keys: newPromptKeys(), scene: scene, version: version, from: from, area: a}
}

func (p *scenePrompt) wide() bool { return p.width >= 110 }

// boxHeight is the height of the side-by-side boxes: room for a prompt of
// the full 3000 characters at half a wide terminal, no more.
func (p *scenePrompt) boxHeight() int { return min(max(p.height-5, 4), 20) }

// Help is the prompt's keys, or the search's while it is open.
func (p *scenePrompt) Help() help.KeyMap {
	if p.search != nil {
		return p.search.Help()
	}
	k := p.keys
	k.Undo.SetEnabled(p.replaced != nil)
	return k
}

func (p *scenePrompt) SetSize(w, h int) {
	p.width, p.height = w, h
	if p.search != nil {
		p.search.SetSize(w-2, h)
	}
	if p.wide() {
		p.area.SetWidth(w/2 - 2)
		p.area.SetHeight(p.boxHeight() - 1)
	} else {
		p.area.SetWidth(w - 2)
		p.area.SetHeight(max(h-12, 3))
	}
}

// edited reports a prompt that is no longer the version's it started from.
func (p *scenePrompt) edited() bool {
	return strings.TrimSpace(p.area.Value()) != strings.TrimSpace(p.from.Prompt)
}

// count is the prompt's length as the service counts it: characters.
func (p *scenePrompt) count() int { return utf8.RuneCountInString(p.area.Value()) }

// Update returns the text to send once the user sends it (ok).
func (p *scenePrompt) Update(msg tea.Msg) (cmd tea.Cmd, text string, ok bool) {
	if p.search != nil {
		if _, chosen := msg.(promptChosenMsg); !chosen {
			cmd, done := p.search.Update(msg)
			if done {
				p.search = nil
			}
			return cmd, "", false
		}
	}
	switch msg := msg.(type) {
	case promptChosenMsg:
		// The text it replaces stays one key away (ctrl+z).
		before := p.area.Value()
		p.area.SetValue(msg.text)
		p.replaced, p.problem = &before, ""
		return nil, "", false
	case editor.EditedMsg:
		if msg.Err != nil {
			p.problem = "$EDITOR: " + api.CleanLine(msg.Err.Error())
		} else {
			p.area.SetValue(strings.TrimRight(msg.Text, "\n"))
		}
		return nil, "", false
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, p.keys.Send):
			text := strings.TrimSpace(p.area.Value())
			switch n := p.count(); {
			case text == "":
				p.problem = "the prompt is empty"
			case n > scenes.PromptLimit:
				p.problem = fmt.Sprintf("the prompt has %d characters; the service takes at most %d", n, scenes.PromptLimit)
			default:
				return nil, text, true
			}
			return nil, "", false
		case key.Matches(msg, p.keys.Editor):
			return editor.Edit("scene-prompt", p.area.Value(), "txt"), "", false
		case key.Matches(msg, p.keys.Prompts):
			// A scene's prompts are remembered with their job's operation.
			p.search = newPromptSearch(p.env, api.OpGeneralOneClick, "prompt", "", false)
			p.search.SetSize(p.width-2, p.height)
			return p.search.Init(), "", false
		case key.Matches(msg, p.keys.Undo) && p.replaced != nil:
			p.area.SetValue(*p.replaced)
			p.replaced = nil
			return nil, "", false
		}
		p.problem = ""
	}
	before := p.area.Value()
	var c tea.Cmd
	p.area, c = p.area.Update(msg)
	if p.area.Value() != before {
		p.replaced = nil // edited since: ctrl+z would lose the edit
	}
	return c, "", false
}

func (p *scenePrompt) View() string {
	if p.search != nil {
		return indent(p.search.View(), 1)
	}
	th := p.env.theme
	n := p.count()
	counter := fmt.Sprintf("prompt %d/%d", n, scenes.PromptLimit)
	if n > scenes.PromptLimit {
		counter = th.Error.Render(counter + " — too long")
	} else {
		counter = th.Dim.Render(counter)
	}
	title := th.Title.Render(fmt.Sprintf(" Edit scene %d", p.scene+1)) + th.Dim.Render(fmt.Sprintf("  a new version from v%d", p.version))
	box := th.Box
	if p.wide() {
		half := p.width/2 - 2
		orig := th.Section.Render("Original") + "\n" + wrap(api.CleanLine(p.from.Prompt), half-2)
		if p.from.LyricText != "" {
			orig += "\n\n" + th.Dim.Render("lyric: "+api.CleanLine(p.from.LyricText))
		}
		left := box.Width(half).Height(p.boxHeight()).Render(orig)
		right := th.Section.Render("New prompt") + "  " + counter + "\n" + p.area.View()
		body := lipgloss.JoinHorizontal(lipgloss.Top, left, "  ", right)
		return title + "\n\n" + body + "\n" + p.footer()
	}
	orig := th.Dim.Render("Original: ") + api.CleanLine(p.from.Prompt)
	origLines := strings.SplitN(wrap(orig, p.width-4), "\n", 5)
	if len(origLines) > 4 {
		origLines = append(origLines[:3], th.Dim.Render("…"))
	}
	return title + "\n" + indent(strings.Join(origLines, "\n"), 1) + "\n\n" +
		" " + th.Section.Render("New prompt") + "  " + counter + "\n" + indent(p.area.View(), 1) + "\n" + p.footer()
}

func (p *scenePrompt) footer() string {
	if p.problem != "" {
		return p.env.theme.Error.Render(" " + p.problem)
	}
	if p.replaced != nil {
		return p.env.theme.Dim.Render(" an earlier prompt took the place of the text: ctrl+z puts it back")
	}
	return ""
}
