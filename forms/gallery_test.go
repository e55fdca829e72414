package forms

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/api/catalog"
)

func templateField(t *testing.T) catalog.Field {
	t.Helper()
	spec, err := catalog.Lookup(api.OpTemplate2Video, "")
	if err != nil {
		t.Fatal(err)
	}
	f, ok := spec.Field("template")
	if !ok || !f.OpenChoice {
		t.Fatal("template2video's template is no open choice")
	}
	return f
}

// The gallery's choice follows its keys: a filter chooses the first entry
// it keeps, a name no entry has is sent as written (and said so), ctrl+u
// clears the filter and keeps the choice, backspace with no filter
// chooses none; pasted text loses its escape sequences.
func TestGalleryChoosesByKeys(t *testing.T) {
	e := newGalleryEditor(templateField(t))
	e.Focus()
	driveEditor(t, e, "type:beast")
	if e.Value() != "beast_companion" {
		t.Fatalf("the filter beast chose %v", e.Value())
	}
	driveEditor(t, e, "ctrl+u")
	if e.Value() != "beast_companion" || e.filter != "" {
		t.Fatalf("ctrl+u: choice %v, filter %q", e.Value(), e.filter)
	}
	driveEditor(t, e, "up")
	if e.Value() != "exotic_princess" {
		t.Fatalf("up from beast_companion chose %v", e.Value())
	}
	driveEditor(t, e, "backspace")
	if e.Value() != nil {
		t.Fatalf("backspace with no filter left %v chosen", e.Value())
	}
	e.Update(tea.PasteMsg{Content: "winter_\x1b[31mfair\x07"})
	if e.Value() != "winter_fair" {
		t.Fatalf("a pasted name no entry has: %q", e.Value())
	}
	view := ansi.Strip(e.View(bareStyles(), 100, true))
	if !strings.Contains(view, "no template matches: “winter_fair” is sent as written") {
		t.Fatalf("the gallery does not say the name goes as written:\n%s", view)
	}
	if blurred := ansi.Strip(e.View(bareStyles(), 100, false)); !strings.Contains(blurred, "winter_fair  not a template clapper knows: sent as written") {
		t.Fatalf("the row does not say the name is unknown:\n%s", blurred)
	}
}
