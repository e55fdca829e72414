package ui

import (
	"clapper/record"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

type tagEditorKeys struct {
	Next, Save, Cancel key.Binding
}

// tagEditor is t in a task's detail: the task's tags (words separated by
// commas or spaces; record.TagRule says what a tag may be) and a free
// note, in a dialog over the detail. ctrl+s checks both and keeps them;
// what was typed stays, with the reason, when a check fails.
type tagEditor struct {
	env     *env
	localID int64
	keys    tagEditorKeys
	tags    textinput.Model
	note    textarea.Model
	onNote  bool
	problem string
	// was is the tags and the note as opened; leaving asks once (esc
	// again) when they were edited and not saved.
	was     [2]string
	leaving bool
}

func newTagEditor(e *env, t record.Task) *tagEditor {
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = "keeper, client-a"
	in.SetStyles(textinput.DefaultStyles(e.theme.Dark))
	in.SetValue(strings.Join(t.Tags, ", "))
	in.Focus()
	a := textarea.New()
	a.ShowLineNumbers = false
	a.Prompt = "  "
	a.Placeholder = "anything worth remembering about this task"
	a.CharLimit = 0 // the limit is checked on ctrl+s: a paste keeps its end
	a.SetStyles(textarea.DefaultStyles(e.theme.Dark))
	a.SetHeight(3)
	a.SetValue(t.Note)
	a.Blur()
	return &tagEditor{env: e, localID: t.LocalID, tags: in, note: a, was: [2]string{in.Value(), a.Value()}, keys: tagEditorKeys{
		Next:   key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "tags/note")),
		Save:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}}
}

func (d *tagEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, d.keys.Cancel), k.String() == "ctrl+c":
			if d.leaving || (d.tags.Value() == d.was[0] && d.note.Value() == d.was[1]) {
				return nil, true
			}
			d.leaving, d.problem = true, ""
			return nil, false
		case key.Matches(k, d.keys.Save), k.String() == "enter" && !d.onNote:
			return d.save()
		case key.Matches(k, d.keys.Next):
			d.onNote = !d.onNote
			if d.onNote {
				d.tags.Blur()
				return d.note.Focus(), false
			}
			d.note.Blur()
			return d.tags.Focus(), false
		}
		d.problem, d.leaving = "", false
	}
	var cmd tea.Cmd
	if d.onNote {
		d.note, cmd = d.note.Update(msg)
	} else {
		d.tags, cmd = d.tags.Update(msg)
	}
	return cmd, false
}

// save checks the tags and the note, then writes them in a command.
func (d *tagEditor) save() (tea.Cmd, bool) {
	tags, err := record.ParseTags(d.tags.Value())
	if err != nil {
		d.problem = err.Error()
		return nil, false
	}
	note, err := record.CleanNote(d.note.Value())
	if err != nil {
		d.problem = err.Error()
		return nil, false
	}
	ctx, store, id := d.env.ctx, d.env.store(), d.localID
	return func() tea.Msg {
		if err := store.SetLabels(ctx, id, tags, note); err != nil {
			return statusMsg{text: fmt.Sprintf("the tags of task #%d could not be kept: %v", id, err), bad: true}
		}
		return done(fmt.Sprintf("tags and note of task #%d kept", id), changedTasks)
	}, true
}

func (d *tagEditor) View(th *Theme, width int) string {
	w := min(width-4, 72)
	d.tags.SetWidth(w - 8)
	d.note.SetWidth(w - 4)
	label := func(name string, focused bool) string {
		if focused {
			return th.Title.Render(name)
		}
		return th.Strong.Bold(false).Render(name)
	}
	body := th.Strong.Render(fmt.Sprintf("Tags and note of task #%d", d.localID)) + "\n" +
		th.Dim.Render(wrap("Tags find the task again with tag:NAME in every filter. A tag is "+record.TagRule+"; separate them with commas or spaces.", w-4)) +
		"\n\n" + label("tags", !d.onNote) + "\n" + d.tags.View() +
		"\n\n" + label("note", d.onNote) + "\n" + d.note.View()
	if d.problem != "" {
		body += "\n" + th.Error.Render(wrap(d.problem, w-4))
	}
	if d.leaving {
		body += "\n" + th.Warning.Render(wrap("What you typed is not saved: esc again drops it, ctrl+s saves it, any other key goes on.", w-4))
	}
	keys := []key.Binding{d.keys.Save, d.keys.Next, d.keys.Cancel}
	var parts []string
	for _, k := range keys {
		parts = append(parts, th.Key.Render(k.Help().Key)+th.Dim.Render(" "+k.Help().Desc))
	}
	return th.Box.Width(w).Render(body + "\n\n" + strings.Join(parts, "   "))
}
