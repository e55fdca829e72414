package ui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"clapper/history"
)

// voicesPage lists the cloned voices history holds and how long each has
// before the service deletes it.
type voicesPage struct {
	env           *env
	voices        []history.Voice
	err           error
	width, height int
}

type voicesLoadedMsg struct {
	voices []history.Voice
	err    error
}

func newVoicesPage(e *env) *voicesPage { return &voicesPage{env: e} }

func (p *voicesPage) Title() string     { return "Voices" }
func (p *voicesPage) Capturing() bool   { return false }
func (p *voicesPage) Help() help.KeyMap { return noKeys{} }
func (p *voicesPage) SetSize(w, h int)  { p.width, p.height = w, h }
func (p *voicesPage) Init() tea.Cmd     { return p.refresh() }
func (p *voicesPage) reopen() tea.Cmd   { return p.refresh() }

func (p *voicesPage) refresh() tea.Cmd {
	store := p.env.store()
	return func() tea.Msg {
		vs, err := store.Voices(context.Background())
		return voicesLoadedMsg{vs, err}
	}
}

func (p *voicesPage) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(voicesLoadedMsg); ok {
		p.voices, p.err = msg.voices, msg.err
	}
	return nil
}

func (p *voicesPage) View() string {
	th := p.env.theme
	now := p.env.now()
	w := max(p.width-4, 20)
	var b strings.Builder
	b.WriteString(th.Title.Render(" Cloned voices") + "\n\n")
	switch {
	case p.err != nil:
		b.WriteString(th.Error.Render(" could not read voices: "+clean(p.err.Error())) + "\n")
	case len(p.voices) == 0:
		b.WriteString(th.Dim.Render(" No cloned voice yet.") + "\n")
	default:
		b.WriteString(th.Dim.Render(fmt.Sprintf("   %-24s %-14s %-14s %s", "VOICE", "CLONED", "LAST USED", "DELETED IN")) + "\n")
		for _, v := range p.voices {
			used := "never"
			if !v.LastUsedAt.IsZero() {
				used = v.LastUsedAt.Local().Format("Jan 2 15:04")
			}
			leftText := left(now, v.ExpiresAt)
			style := th.Success.Render
			switch {
			case v.Expired(now):
				style, leftText = th.Dim.Render, "expired"
			case v.ExpiresAt.Sub(now).Hours() < 24:
				style = th.Warning.Render
			}
			b.WriteString(fmt.Sprintf("   %s %s %s %s\n", fit(clean(v.VoiceID), 24), fit(v.CreatedAt.Local().Format("Jan 2 15:04"), 14), fit(used, 14), style(leftText)))
		}
	}
	b.WriteString("\n" + indent(wrap("The service deletes a cloned voice unless it is used in speech synthesis within 168 hours. "+
		"Cloning, reminders and speech from this page come with the next release; meanwhile:", w), 1) + "\n\n")
	for _, c := range []string{
		"clapper create audio-clone --set voice_id=narrator_01 --set audio_url=./sample.wav",
		"clapper create audio-tts --set voice_setting_voice_id=narrator_01 --set text='Hello there' --wait",
	} {
		b.WriteString(th.Key.Render(indent(wrap(c, w-4), 3)) + "\n")
	}
	b.WriteString(th.Key.Render("   clapper voices") + th.Dim.Render("   the same list, for scripts") + "\n")
	return b.String()
}
