package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// choiceDialog asks a question with several answers, each on its own key;
// esc (or ctrl+c) cancels, running onCancel.
type choiceDialog struct {
	title, body string
	choices     []dialogChoice
	onCancel    tea.Cmd
}

type dialogChoice struct {
	key, label string
	cmd        tea.Cmd
}

func (d *choiceDialog) Update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch k.String() {
	case "esc", "ctrl+c":
		return d.onCancel, true
	}
	for _, c := range d.choices {
		if k.String() == c.key {
			return c.cmd, true
		}
	}
	return nil, false
}

func (d *choiceDialog) View(th *Theme, width int) string {
	w := min(width-4, 64)
	keys := make([]string, 0, len(d.choices)+1)
	for _, c := range d.choices {
		keys = append(keys, th.Key.Render(c.key)+th.Dim.Render(" "+c.label))
	}
	keys = append(keys, th.Key.Render("esc")+th.Dim.Render(" cancel"))
	body := th.Strong.Render(d.title) + "\n\n" + wrap(d.body, w-4) + "\n\n" + strings.Join(keys, "\n")
	return th.Box.Width(w).Render(body)
}
