// Package editor is clapper's one way of handing a text to the user's
// editor: $VISUAL, else $EDITOR, else vi, on a temp file, the program
// suspended meanwhile (tea.ExecProcess). The forms' long texts and the
// scene prompt both use it.
package editor

import (
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// EditedMsg is what the editor left in the file (the newline editors end a
// file with removed), or why it could not run. ID is the caller's, so the
// text reaches the field that asked.
type EditedMsg struct {
	ID   string
	Text string
	Err  error
}

// Command is the editor to run and its arguments: $VISUAL, else $EDITOR
// (either may carry arguments, "code --wait"), else vi.
func Command() []string {
	for _, env := range []string{"VISUAL", "EDITOR"} {
		if f := strings.Fields(os.Getenv(env)); len(f) > 0 {
			return f
		}
	}
	return []string{"vi"}
}

// Edit opens text in the editor in a temp file named *.ext (so the editor
// picks its mode) and reports the result as an EditedMsg with id. The temp
// file is written, read and removed inside the command: calling Edit from
// Update does no I/O.
func Edit(id, text, ext string) tea.Cmd {
	return func() tea.Msg {
		f, err := os.CreateTemp("", "clapper-*."+ext)
		if err != nil {
			return EditedMsg{ID: id, Err: err}
		}
		name := f.Name()
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return EditedMsg{ID: id, Err: err}
		}
		args := append(Command(), name)
		run := tea.ExecProcess(exec.Command(args[0], args[1:]...), func(err error) tea.Msg {
			defer os.Remove(name)
			if err != nil {
				return EditedMsg{ID: id, Err: err}
			}
			b, err := os.ReadFile(name)
			return EditedMsg{ID: id, Text: strings.TrimSuffix(string(b), "\n"), Err: err}
		})
		return run()
	}
}
