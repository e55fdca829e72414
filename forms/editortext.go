// Text helpers of the structured editors (subjects, timing): one-line
// screen-safe text, fixed-width cells, the inputs' styles.

package forms

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
)

// inputStyles draws the input with the form's styles: no colour of its own,
// and a cursor that does not blink (nothing redraws while nothing changes).
func inputStyles(st *Styles) textinput.Styles {
	state := textinput.StyleState{Text: st.Value, Placeholder: st.Dim, Suggestion: st.Dim, Prompt: st.Dim}
	return textinput.Styles{
		Focused: state,
		Blurred: state,
		Cursor:  textinput.CursorStyle{Color: st.Focused.GetForeground(), Shape: tea.CursorBlock},
	}
}

// heldMedia reports whether a text is media given whole: a data URI with
// its bytes (pasted, or an image made here) or history's placeholder of one.
// It is shown by its type and size and removed, not typed over. Text that
// only begins with "data:" is still being typed and stays editable: the
// check names what it lacks.
func heldMedia(s string) bool {
	return catalog.IsDataURI(s) && (strings.Contains(s, ",") || isPlaceholder(s))
}

// dataURISummary shows a data URI by its type and size, never its base64.
func dataURISummary(v string) string {
	head, data, _ := strings.Cut(v, ",")
	n := len(data) * 3 / 4
	size := fmt.Sprintf("%d B", n)
	switch {
	case n >= 1<<20:
		size = fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		size = fmt.Sprintf("%d KB", n>>10)
	}
	return api.CleanLine(head) + " · " + size
}
