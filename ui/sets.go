package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
)

// setsShown is how many of the newest sets the list offers.
const setsShown = 12

// listSets reads the newest sets in a command and opens their list.
func listSets(e *env) tea.Cmd {
	ctx, store := e.ctx, e.store()
	return readingDialog(func() tea.Msg {
		sets, err := store.Sets(ctx, setsShown)
		if err != nil {
			return statusMsg{text: "the sets could not be read: " + api.CleanLine(err.Error()), bad: true}
		}
		if len(sets) == 0 {
			return statusMsg{text: "no sets yet: v on the New page's review sends variations; clapper batch FILE sends a batch", bad: true}
		}
		return openDialogMsg{d: &setsDialog{sets: sets}}
	})
}

// The list's keys are every list's: g/G and home/end reach its ends.
var setsDialogKeys = struct{ Up, Down, First, Last, Open, Close key.Binding }{
	Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
	Down:  key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
	First: key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "newest")),
	Last:  key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "oldest")),
	Open:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "contact sheet")),
	Close: key.NewBinding(key.WithKeys("esc", "q", "ctrl+c"), key.WithHelp("esc", "close")),
}

// setsDialog lists the newest sets (variations and batches); enter opens
// one's contact sheet.
type setsDialog struct {
	sets   []record.SetInfo
	cursor int
}

func (d *setsDialog) Update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, setsDialogKeys.Up):
		d.cursor = max(d.cursor-1, 0)
	case key.Matches(k, setsDialogKeys.Down):
		d.cursor = min(d.cursor+1, len(d.sets)-1)
	case key.Matches(k, setsDialogKeys.First):
		d.cursor = 0
	case key.Matches(k, setsDialogKeys.Last):
		d.cursor = len(d.sets) - 1
	case key.Matches(k, setsDialogKeys.Open):
		id := d.sets[d.cursor].ID
		return func() tea.Msg { return openSheetMsg{setID: id} }, true
	case key.Matches(k, setsDialogKeys.Close):
		return nil, true
	}
	return nil, false
}

func (d *setsDialog) View(th *Theme, width int) string {
	w := min(width-4, 84)
	var b strings.Builder
	b.WriteString(th.Strong.Render("Sets") + th.Dim.Render(fmt.Sprintf(" · the newest %d", len(d.sets))) + "\n\n")
	for i, si := range d.sets {
		mark := "  "
		if i == d.cursor {
			mark = th.Marker.Render("▌ ")
		}
		sent := fmt.Sprintf("%d/%d sent", si.Sent, si.Lines)
		if si.Sent == si.Lines {
			sent = textutil.Plural(si.Lines, "task")
		}
		if si.Keeper != 0 {
			sent += fmt.Sprintf(" · ★ %d", si.Keeper)
		}
		left := fmt.Sprintf("%d  %-10s %s", si.ID, si.Kind, api.CleanLine(si.Name))
		right := th.Dim.Render(sent + " · " + si.CreatedAt.Local().Format("Jan 2 15:04"))
		b.WriteString(mark + textutil.JoinEnds(left, right, w-6) + "\n")
	}
	b.WriteString("\n" + th.Key.Render("enter") + th.Dim.Render(" contact sheet   ") + th.Key.Render("g/G") + th.Dim.Render(" newest/oldest   ") +
		th.Key.Render("esc") + th.Dim.Render(" close"))
	return th.Box.Width(w).Render(b.String())
}

// openSheet shows a set's contact sheet over the page (a detail opened
// from it comes back to it).
func (m *Model) openSheet(setID int64) tea.Cmd {
	free := m.closeDetail()
	m.dropSheet()
	c := newContactSheet(m.env, setID)
	m.showHelp = false
	m.push(layer{screen: c})
	return tea.Batch(free, c.Init())
}

// onSheetMsg hands the sheet its own messages.
func (m *Model) onSheetMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case openSheetMsg:
		return m.openSheet(msg.setID)
	case sheetChangedMsg:
		cmd := status(msg.text)
		if m.sheet() != nil && m.sheet().setID == msg.setID {
			cmd = tea.Batch(cmd, m.toSheet(msg))
		}
		return cmd
	}
	return m.toSheet(msg)
}
