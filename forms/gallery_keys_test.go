package forms

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A key reports a change when it changes the choice or the filter: a
// narrower filter keeping the same choice is one, ↑ with nothing above is
// none.
func TestGalleryReportsWhatAKeyChanged(t *testing.T) {
	e := newGalleryEditor(templateField(t))
	e.Focus()
	if driveEditor(t, e, "up") {
		t.Fatal("↑ with nothing chosen reported a change")
	}
	if !driveEditor(t, e, "type:beast") || e.Value() != "beast_companion" {
		t.Fatalf("typing beast: %v", e.Value())
	}
	if !driveEditor(t, e, "type:_") || e.Value() != "beast_companion" {
		t.Fatalf("a narrower filter on the same choice reported no change (%v)", e.Value())
	}
}

// The filter line invites typing while empty, and shows what is typed.
func TestGalleryFilterLine(t *testing.T) {
	e := newGalleryEditor(templateField(t))
	e.Focus()
	first := func() string { return strings.SplitN(ansi.Strip(e.View(bareStyles(), 100, true)), "\n", 2)[0] }
	if got := first(); got != "/ type to filter by name or what it makes" {
		t.Fatalf("empty filter: %q", got)
	}
	driveEditor(t, e, "type:hug")
	if got := first(); got != "/ hug▏" {
		t.Fatalf("typed filter: %q", got)
	}
}
