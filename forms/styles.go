package forms

import (
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
)

// Styles is how a form draws. The UI builds it once from its one theme, so a
// form looks like the rest of the app; the huh widgets inside get a fixed
// theme built from the same styles (huh's own themes rebuild every style on
// each render and follow only the focused group's background).
type Styles struct {
	Title    lipgloss.Style // the form's heading
	Label    lipgloss.Style // a field's name
	Focused  lipgloss.Style // the focused field's name
	Bar      lipgloss.Style // the bar left of the focused field
	Value    lipgloss.Style // a value as typed
	Default  lipgloss.Style // a default the service applies
	Dim      lipgloss.Style // help and limits
	Key      lipgloss.Style // key names in hints
	Error    lipgloss.Style // a broken rule
	Warning  lipgloss.Style // a warning that does not block
	OK       lipgloss.Style // a kept rule, a good figure
	Section  lipgloss.Style // group headings
	Selected lipgloss.Style // the chosen item of a list
	Track    lipgloss.Style // the empty part of a timeline
	Fill     lipgloss.Style // a bar on a timeline
	Overlap  lipgloss.Style // where bars of a timeline overlap

	widgets huh.Theme
}

// fixedTheme hands huh the same styles for a dark and a light background:
// the UI picks the palette.
type fixedTheme struct{ s *huh.Styles }

func (t fixedTheme) Theme(bool) *huh.Styles { return t.s }

// Build prepares the huh widgets' theme; call it once after filling the styles.
func (s *Styles) Build() {
	h := huh.ThemeBase(false)
	for _, fs := range []*huh.FieldStyles{&h.Focused, &h.Blurred} {
		fs.Base = lipgloss.NewStyle()
		fs.Title = s.Label
		fs.Description = s.Dim
		fs.ErrorIndicator = s.Error
		fs.ErrorMessage = s.Error
		fs.TextInput.Cursor = s.Focused
		fs.TextInput.Placeholder = s.Default
		fs.TextInput.Prompt = s.Dim
		fs.TextInput.Text = s.Value
	}
	h.Focused.TextInput.Prompt = s.Bar
	s.widgets = fixedTheme{h}
}
