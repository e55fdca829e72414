package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Theme is the one palette of the app, built from named colour roles for a
// dark or a light terminal. With NO_COLOR (or a terminal without colour)
// Bubble Tea drops the colours and keeps bold and reverse, so nothing the
// user must see is carried by colour alone: the selected row has a marker,
// states have glyphs.
type Theme struct {
	Dark bool

	Text, Muted, Subtle, Accent, OK, Warn, Bad, Busy color.Color

	Title     lipgloss.Style
	Dim       lipgloss.Style
	Faint     lipgloss.Style
	Strong    lipgloss.Style
	Key       lipgloss.Style
	Tab       lipgloss.Style
	TabActive lipgloss.Style
	Badge     lipgloss.Style
	LiveBadge lipgloss.Style
	Selected  lipgloss.Style
	Marker    lipgloss.Style
	Success   lipgloss.Style
	Warning   lipgloss.Style
	Error     lipgloss.Style
	Running   lipgloss.Style
	Section   lipgloss.Style
	Box       lipgloss.Style
	Input     lipgloss.Style
	Help      help.Styles
}

// NewTheme builds the palette for a dark or light background.
func NewTheme(dark bool) *Theme {
	ld := lipgloss.LightDark(dark)
	t := &Theme{
		Dark:   dark,
		Text:   ld(lipgloss.Color("#1F1F28"), lipgloss.Color("#E6E6EF")),
		Muted:  ld(lipgloss.Color("#5C5C70"), lipgloss.Color("#9A9AB0")),
		Subtle: ld(lipgloss.Color("#D0D0DC"), lipgloss.Color("#3A3A4A")),
		Accent: ld(lipgloss.Color("#5A3FD6"), lipgloss.Color("#A58BFF")),
		OK:     ld(lipgloss.Color("#1F7A3A"), lipgloss.Color("#5FD38A")),
		Warn:   ld(lipgloss.Color("#9A5B00"), lipgloss.Color("#F2B65C")),
		Bad:    ld(lipgloss.Color("#B3261E"), lipgloss.Color("#FF7A70")),
		Busy:   ld(lipgloss.Color("#0B62A8"), lipgloss.Color("#6CB6FF")),
	}
	base := lipgloss.NewStyle()
	t.Title = base.Bold(true).Foreground(t.Accent)
	t.Dim = base.Foreground(t.Muted)
	t.Faint = base.Foreground(t.Subtle)
	t.Strong = base.Bold(true).Foreground(t.Text)
	t.Key = base.Bold(true).Foreground(t.Accent)
	t.Tab = base.Foreground(t.Muted).Padding(0, 1)
	t.TabActive = base.Bold(true).Foreground(t.Text).Background(t.Subtle).Padding(0, 1)
	t.Badge = base.Bold(true).Reverse(true).Foreground(t.Warn).Padding(0, 1)
	t.LiveBadge = base.Bold(true).Reverse(true).Foreground(t.OK).Padding(0, 1)
	t.Selected = base.Bold(true).Foreground(t.Text).Background(t.Subtle)
	t.Marker = base.Bold(true).Foreground(t.Accent)
	t.Success = base.Foreground(t.OK)
	t.Warning = base.Foreground(t.Warn)
	t.Error = base.Foreground(t.Bad)
	t.Running = base.Foreground(t.Busy)
	t.Section = base.Bold(true).Foreground(t.Accent)
	t.Box = base.Border(lipgloss.RoundedBorder()).BorderForeground(t.Accent).Padding(0, 1)
	t.Input = base.Foreground(t.Text)
	t.Help = help.DefaultStyles(dark)
	return t
}

// ThemeFor picks the palette for a Settings choice ("auto" follows the
// terminal's background as reported).
func ThemeFor(choice string, terminalDark bool) *Theme {
	switch choice {
	case "dark":
		return NewTheme(true)
	case "light":
		return NewTheme(false)
	}
	return NewTheme(terminalDark)
}
