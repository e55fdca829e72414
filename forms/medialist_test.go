package forms

import (
	"strings"
	"testing"

	"clapper/api"
)

// An empty list's help offers no key that acts on its items: ctrl+d and
// ↑/↓ come with the first item listed.
func TestEmptyListOffersNoItemKeys(t *testing.T) {
	f := newTestForm(t, api.OpImg2Video, "svcq3-turbo")
	if got := f.FocusedField(); got != "images" {
		t.Fatalf("the form opens on %q", got)
	}
	offered := func() string {
		var keys []string
		for _, b := range f.ShortHelp() {
			if b.Enabled() {
				keys = append(keys, b.Help().Key)
			}
		}
		return strings.Join(keys, " ")
	}
	if got := offered(); strings.Contains(got, "ctrl+d") || strings.Contains(got, "↑/↓") || !strings.Contains(got, "enter") {
		t.Errorf("an empty list offers %q", got)
	}
	typeText(f, "https://example.com/a.png")
	f.Update(keyPress("enter"))
	for f.FocusedField() != "images" {
		f.Update(keyPress("shift+tab"))
	}
	if got := offered(); !strings.Contains(got, "ctrl+d") {
		t.Errorf("a list of one item offers %q", got)
	}
}
