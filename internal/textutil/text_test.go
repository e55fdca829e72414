package textutil

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Plural(0, "task"), "0 tasks"},
		{Plural(1, "task"), "1 task"},
		{Plural(2, "task"), "2 tasks"},
		{Plural(2, "query", "queries"), "2 queries"},
		{Plural(1, "query", "queries"), "1 query"},
		{Word(1, "has", "have"), "has"},
		{Word(3, "has", "have"), "have"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestClipKeepsCharactersWhole(t *testing.T) {
	if got := Clip("héllo", 2); got != "h…" {
		t.Errorf("Clip split a character: %q", got)
	}
	if got := Clip("short", 10); got != "short" {
		t.Errorf("Clip changed a short text: %q", got)
	}
}

func TestCellWidth(t *testing.T) {
	for _, c := range []struct {
		name, got, want string
	}{
		{"fit pads", Fit("ab", 4), "ab  "},
		{"fit cuts with an ellipsis", Fit("abcdef", 4), "abc…"},
		{"fit counts wide characters as two cells", Fit("日本語", 5), "日本…"},
		{"fit right pads on the left", FitRight("ab", 4), "  ab"},
		{"truncate leaves short text alone", Truncate("ab", 4), "ab"},
		{"cut marks nothing", Cut("abcdef", 4), "abcd"},
		{"no room", Fit("abc", 0), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
	styled := "\x1b[1mbold text\x1b[0m"
	if w := ansi.StringWidth(Fit(styled, 6)); w != 6 {
		t.Errorf("Fit of styled text is %d cells, want 6", w)
	}
}

func TestWrapNeverSplitsAHyphenatedName(t *testing.T) {
	for w := 8; w < 40; w++ {
		for _, line := range strings.Split(Wrap("duration: svcq3-turbo accepts 4-12 seconds", w), "\n") {
			if strings.HasSuffix(strings.TrimSpace(line), "svcq3-") || strings.HasPrefix(strings.TrimSpace(line), "turbo") {
				t.Fatalf("width %d split the model name: %q", w, line)
			}
		}
	}
}

func TestJoinEnds(t *testing.T) {
	for _, c := range []struct {
		left, right string
		w           int
		want        string
	}{
		{"left", "right", 12, "left   right"},
		{"a long left side", "right", 12, "a lon… right"},
		{"left", "a right end too wide", 8, "a right…"},
	} {
		if got := JoinEnds(c.left, c.right, c.w); got != c.want {
			t.Errorf("JoinEnds(%q, %q, %d) = %q, want %q", c.left, c.right, c.w, got, c.want)
		}
	}
}

// The bounds of each: a count of minus one agrees like one (a change of
// credits), a text of exactly its room is left whole, no room is nothing,
// and a right end that leaves no cell for a space is all the line holds.
func TestTextAtItsBounds(t *testing.T) {
	for _, c := range []struct {
		name, got, want string
	}{
		{"minus one is singular", Plural(-1, "credit"), "-1 credit"},
		{"minus two is plural", Plural(-2, "credit"), "-2 credits"},
		{"clip of exactly its room", Clip("abc", 3), "abc"},
		{"clip of a text that begins mid-character", Clip("\x80abc", 0), "…"},
		{"truncate to nothing", Truncate("abc", 0), ""},
		{"truncate of exactly its room", Truncate("abc", 3), "abc"},
		{"cut to nothing", Cut("abc", 0), ""},
		{"cut of exactly its room", Cut("abc", 3), "abc"},
		{"fit of exactly its room", Fit("abc", 3), "abc"},
		{"fit right of exactly its room", FitRight("abc", 3), "abc"},
		{"a right end one cell short of the line", JoinEnds("ab", "cd", 3), "cd"},
		{"a right end two cells short of the line", JoinEnds("ab", "cd", 4), "… cd"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}
