// Text helpers of the structured editors (subjects, timing): one-line
// screen-safe text, fixed-width cells, the inputs' styles.

package forms

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
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
