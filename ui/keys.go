package ui

import "charm.land/bubbles/v2/key"

// noKeys is the KeyMap of a page with no keys of its own.
type noKeys struct{}

func (noKeys) ShortHelp() []key.Binding  { return nil }
func (noKeys) FullHelp() [][]key.Binding { return nil }
