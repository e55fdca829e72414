package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

// The lineage dialog (l in a task's detail) shows a task's whole chain:
// every task it came from, through any number of sends onward (several
// sources each), the task itself (▶), and every task made from it, one
// line each, indented by depth, each with the sources it was made from. ↑/↓
// choose a task, enter opens its detail, esc closes. History is read in the
// command that opens it.

type lineageKeys struct{ Up, Down, Open, Close key.Binding }

func newLineageKeys() lineageKeys {
	return lineageKeys{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "choose")),
		Down:  key.NewBinding(key.WithKeys("down", "j")),
		Open:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open its detail")),
		Close: key.NewBinding(key.WithKeys("esc", "q", "l"), key.WithHelp("esc", "close")),
	}
}

type lineageDialog struct {
	of     int64
	nodes  []record.LineageNode
	err    error
	cursor int
	keys   lineageKeys
}

// openLineage reads a task's lineage and opens the dialog that shows it
// (a history read that fails is shown in it, with its reason).
func openLineage(e *env, localID int64) tea.Cmd {
	ctx, store := e.ctx, e.store()
	return readingDialog(func() tea.Msg {
		d := &lineageDialog{of: localID, keys: newLineageKeys()}
		d.nodes, d.err = store.Lineage(ctx, localID)
		for i, n := range d.nodes {
			if n.LocalID == localID {
				d.cursor = i
			}
		}
		return openDialogMsg{d: d}
	})
}

func (d *lineageDialog) Update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, d.keys.Close):
			return nil, true
		case key.Matches(msg, d.keys.Up):
			d.cursor = max(d.cursor-1, 0)
		case key.Matches(msg, d.keys.Down):
			d.cursor = min(d.cursor+1, max(len(d.nodes)-1, 0))
		case key.Matches(msg, d.keys.Open) && d.cursor < len(d.nodes):
			id := d.nodes[d.cursor].LocalID
			return func() tea.Msg { return openDetailMsg{localID: id, chain: true} }, true
		}
	}
	return nil, false
}

func (d *lineageDialog) View(th *Theme, width int) string {
	w := min(width-4, 96)
	var b strings.Builder
	b.WriteString(th.Strong.Render(fmt.Sprintf("Lineage of #%d", d.of)) + "\n\n")
	switch {
	case d.err != nil:
		b.WriteString(th.Error.Render(wrap(api.CleanLine(d.err.Error()), w-4)))
	default:
		top := 0
		for _, n := range d.nodes {
			top = min(top, n.Depth)
		}
		for i, n := range d.nodes {
			indent := strings.Repeat("  ", n.Depth-top)
			marker := "  "
			if i == d.cursor {
				marker = th.Marker.Render("▌") + " "
			}
			this := ""
			if n.LocalID == d.of {
				this = th.Strong.Render("▶ ")
			}
			line := fmt.Sprintf("%s#%d %s %s", indent, n.LocalID, n.Operation, glyph(n.State))
			if n.Prompt != "" {
				line += "  " + api.CleanLine(n.Prompt)
			}
			b.WriteString(marker + this + textutil.Fit(line, w-8) + "\n")
			for _, l := range n.From {
				src := fmt.Sprintf("%s  ← %s of #%d %s %s", indent, studio.PlaceOf(l, n.Operation, l.Operation), l.LocalID, l.Operation, glyph(l.State))
				b.WriteString("    " + th.Dim.Render(textutil.Fit(src, w-8)) + "\n")
			}
		}
	}
	b.WriteString("\n" + th.Key.Render("↑/↓") + th.Dim.Render(" choose   ") + th.Key.Render("enter") + th.Dim.Render(" open its detail   ") +
		th.Key.Render("esc") + th.Dim.Render(" close"))
	return th.Box.Width(w).Render(b.String())
}
