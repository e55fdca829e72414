package ui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// scenesPage says what the multi-scene editor will do and how to work with
// multi-scene jobs from the command line meanwhile.
type scenesPage struct {
	env           *env
	width, height int
}

func newScenesPage(e *env) *scenesPage { return &scenesPage{env: e} }

func (p *scenesPage) Title() string          { return "Scenes" }
func (p *scenesPage) Init() tea.Cmd          { return nil }
func (p *scenesPage) Update(tea.Msg) tea.Cmd { return nil }
func (p *scenesPage) Capturing() bool        { return false }
func (p *scenesPage) Help() help.KeyMap      { return noKeys{} }
func (p *scenesPage) SetSize(w, h int)       { p.width, p.height = w, h }

func (p *scenesPage) View() string {
	th := p.env.theme
	w := max(p.width-4, 20)
	return th.Title.Render(" Multi-scene videos") + "\n\n" +
		indent(wrap("Here you will edit a general_one_click job scene by scene: see each scene's prompt, lyric text and versions, "+
			"rewrite one scene's prompt, choose which version of each scene goes into the cut, and recompose.", w), 1) + "\n\n" +
		indent(wrap("Until then, the command line creates and follows them; they show on the Tasks page like any task:", w), 1) + "\n\n" +
		th.Key.Render("   clapper models general_one_click") + th.Dim.Render("   what a job takes") + "\n" +
		th.Key.Render("   clapper create general_one_click -f job.json --wait") + "\n" +
		th.Key.Render("   clapper get JOB_ID") + th.Dim.Render("   its scenes, versions and composed video") + "\n"
}
