package forms

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
)

// editor is the input of one field. The form takes its own keys first (tab,
// shift+tab, ctrl+s, esc) and routes the rest to the focused editor.
type editor interface {
	// Update handles a message while the editor has focus and reports
	// whether the value changed.
	Update(msg tea.Msg) (cmd tea.Cmd, changed bool)
	// View draws the input, not the label, in width cells.
	View(s *Styles, width int, focused bool) string
	// Value is the value as the request carries it, local file paths not yet
	// read; nil when unset.
	Value() any
	// Set replaces the content: a draft, a duplicated task, preset values.
	Set(v any)
	// SetField gives the editor the rules of the chosen model; it keeps its
	// content, even where the new rules refuse it.
	SetField(f catalog.Field)
	Focus() tea.Cmd
	Blur()
	// Counter is the live limit beside the label: "312/5000", "2 of 1-7".
	Counter() string
	// OwnsKey reports a key the editor needs even though the form has a use
	// for it (enter in a list, up and down in a multi-line text).
	OwnsKey(msg tea.KeyPressMsg) bool
	// Keys are the editor's own keys for the help line.
	Keys() []key.Binding
}

// Context is what editors read besides their field: the cloned voices for
// voice pickers, the directory relative paths start from and the chosen
// model; and what a check needs from outside: the price of a request.
type Context struct {
	Voices []string
	// Subjects is the library of stored subjects the reference2video
	// subjects editor picks from by name.
	Subjects []StoredSubject
	// Results are the newest finished images in history, newest first:
	// an image field steps through them with ctrl+l.
	Results []Result
	// SizeRule holds a request to the service's size limit (nil: 20 MB,
	// nothing uploaded).
	SizeRule SizeRule
	Dir      string
	Op       api.Operation
	Model    string
	// Quote prices a request as it would be sent, saying where the figure
	// comes from; it runs in the background and may read history.
	Quote func(op api.Operation, body map[string]any) string
	// Spending says, for a request about to be sent, what was spent today
	// and this month and, when sending it would pass a credit cap, why:
	// the review asks before such a send. Nil shows nothing.
	Spending func(op api.Operation, body map[string]any) (spent, overCap string)
	// Uploading says whether the images of a request of size bytes
	// (inlined) go through the service's upload flow: the review then
	// shows them as the uploads that are sent. Nil: never.
	Uploading func(size int) bool

	files *fileCache
	// pickedFrom is the folder the last file was picked from: the picker
	// opens there next time, in any form.
	pickedFrom string
}
