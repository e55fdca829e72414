package forms

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"clapper/api/catalog"
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
	if got := first(); got != "/ type to filter by name or what it makes" || e.Counter() != "6 known" {
		t.Fatalf("empty filter: %q, counter %q", got, e.Counter())
	}
	driveEditor(t, e, "type:hug")
	if got := first(); got != "/ hug▏" || e.Counter() != "1 of 6" {
		t.Fatalf("typed filter: %q, counter %q", got, e.Counter())
	}
}

// manyTemplates is the template field with six more entries than the
// catalog's six: more than the gallery shows at once.
func manyTemplates(t *testing.T) catalog.Field {
	f := templateField(t)
	f.Options = append(slices.Clone(f.Options), "aa1", "aa2", "aa3", "aa4", "aa5", "aa6")
	f.OptionHelp = map[string]string{"aa1": "one more", "aa2": "two more", "aa3": "three", "aa4": "four", "aa5": "five", "aa6": "six"}
	return f
}

// The gallery shows seven entries at a time in columns (name, what it
// needs, what it makes), the highlighted one in the middle once the list
// scrolls, and under them where the highlight is among how many.
func TestGalleryWindowFollowsTheHighlight(t *testing.T) {
	e := newGalleryEditor(manyTemplates(t))
	e.Focus()
	view := func() []string { return strings.Split(ansi.Strip(e.View(bareStyles(), 100, true)), "\n") }
	ls := view()
	if len(ls) != 9 || ls[1] != "  hugging          1 or 2 photos, a prompt       the people in your photos hug" ||
		ls[7] != "  aa1                                            one more" || strings.Contains(strings.Join(ls, "\n"), "›") {
		t.Fatalf("nothing chosen:\n%s", strings.Join(ls, "\n"))
	}
	if ls[8] != "  0 of 12 · none chosen: ↓ picks the first, or type to filter" {
		t.Fatalf("the foot with nothing chosen: %q", ls[8])
	}
	driveEditor(t, e, "down", "down", "down", "down", "down")
	ls = view()
	if ls[1] != "  kissing          1 or 2 photos, a prompt       the people in your photos kiss" ||
		!strings.HasPrefix(ls[4], "› exotic_princess  ") || ls[7] != "  aa2                                            two more" {
		t.Fatalf("on the fifth of twelve:\n%s", strings.Join(ls, "\n"))
	}
	if ls[8] != "  5 of 12" {
		t.Fatalf("the foot on the fifth: %q", ls[8])
	}
	for range 8 {
		driveEditor(t, e, "down")
	}
	ls = view()
	if !strings.HasPrefix(ls[1], "  beast_companion  ") || ls[7] != "› aa6                                            six" || ls[8] != "  12 of 12" {
		t.Fatalf("on the last:\n%s", strings.Join(ls, "\n"))
	}
}

// On a narrow screen, where the entries are cut, the foot gives the
// highlighted one in full (two lines at most, the second cut).
func TestGalleryNarrowFootSaysTheEntry(t *testing.T) {
	e := newGalleryEditor(manyTemplates(t))
	e.Focus()
	driveEditor(t, e, "down", "down", "down", "down")
	ls := strings.Split(ansi.Strip(e.View(bareStyles(), 40, true)), "\n")
	foot := ls[len(ls)-2:]
	if foot[0] != "  4 of 12 · pubg_winner_hit: your" || foot[1] != "  subject in a battle-royale victory …" {
		t.Fatalf("the foot at 40 columns:\n%s", strings.Join(ls, "\n"))
	}
	e = newGalleryEditor(templateField(t))
	e.Focus()
	driveEditor(t, e, "down")
	ls = strings.Split(ansi.Strip(e.View(bareStyles(), 60, true)), "\n")
	if got := strings.Join(ls[len(ls)-2:], "\n"); got != "  hugging: the people in your photos hug · needs 1 or 2\n  photos, a prompt" {
		t.Fatalf("the foot at 60 columns, six entries:\n%s", strings.Join(ls, "\n"))
	}
	if ls = strings.Split(ansi.Strip(e.View(bareStyles(), 100, true)), "\n"); len(ls) != 7 {
		t.Fatalf("a foot where every entry is whole:\n%s", strings.Join(ls, "\n"))
	}
}

// The foot gives the highlighted entry in full only when its line is cut:
// hugging's line is 78 cells, whole at 78 columns, cut at 77. Seven
// entries all show at once: no count under them.
func TestGalleryFootOnlyWhereTheEntryIsCut(t *testing.T) {
	e := newGalleryEditor(templateField(t))
	e.Focus()
	driveEditor(t, e, "down")
	if ls := strings.Split(ansi.Strip(e.View(bareStyles(), 78, true)), "\n"); len(ls) != 7 || !strings.HasSuffix(ls[1], "the people in your photos hug") {
		t.Fatalf("at 78 columns:\n%s", strings.Join(ls, "\n"))
	}
	if ls := strings.Split(ansi.Strip(e.View(bareStyles(), 77, true)), "\n"); len(ls) != 8 || !strings.HasPrefix(ls[7], "  hugging: the people in your photos hug") {
		t.Fatalf("at 77 columns:\n%s", strings.Join(ls, "\n"))
	}
	f := templateField(t)
	f.Options = append(slices.Clone(f.Options), "aa1")
	e = newGalleryEditor(f)
	e.Focus()
	driveEditor(t, e, "down")
	if ls := strings.Split(ansi.Strip(e.View(bareStyles(), 100, true)), "\n"); len(ls) != 8 || strings.Contains(ls[7], "of 7") {
		t.Fatalf("seven entries:\n%s", strings.Join(ls, "\n"))
	}
}
