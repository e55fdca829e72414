// Package textutil holds the one implementation of each small text job the
// front ends share: counts with their nouns, clipping by bytes, and fitting
// text into a number of terminal cells. It imports nothing of clapper's,
// so any package but api (which imports nothing of ours) may use it; byte
// sizes are api.ByteSize, as api's own errors need them.
package textutil

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Plural is a count with its noun in agreement: Plural(1, "task") is
// "1 task", Plural(3, "task") "3 tasks". An irregular plural follows the
// noun: Plural(2, "query", "queries").
func Plural(n int, one string, many ...string) string {
	return fmt.Sprintf("%d %s", n, Word(n, one, many...))
}

// Word is the form of a word that agrees with a count, without the count:
// Word(2, "has", "have") is "have".
func Word(n int, one string, many ...string) string {
	if n == 1 || n == -1 {
		return one
	}
	if len(many) > 0 {
		return many[0]
	}
	return one + "s"
}

// Clip shortens s to at most n bytes and an ellipsis, never splitting a
// character: for texts quoted inside messages.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Truncate cuts (possibly styled) text to at most w cells, ending in an
// ellipsis when something was cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Cut cuts (possibly styled) text to at most w cells without a mark: for
// frames, where the edge of the screen shows the cut.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "")
}

// Fit makes text exactly w cells: truncated with an ellipsis, or padded on
// the right.
func Fit(s string, w int) string {
	s = Truncate(s, w)
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// FitRight is Fit aligned right: padded on the left.
func FitRight(s string, w int) string {
	s = Truncate(s, w)
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s = strings.Repeat(" ", pad) + s
	}
	return s
}

// Width is how many cells text takes, escape sequences aside.
func Width(s string) int { return ansi.StringWidth(s) }

// nbHyphen stands in for a hyphen while text is wrapped: wrappers break
// after any hyphen, and a model name (svcq3-turbo) must never be split.
const nbHyphen = "\u2011"

// HoldHyphens makes every hyphen of s unbreakable for a wrapper;
// ReleaseHyphens gives them back after wrapping.
func HoldHyphens(s string) string    { return strings.ReplaceAll(s, "-", nbHyphen) }
func ReleaseHyphens(s string) string { return strings.ReplaceAll(s, nbHyphen, "-") }

// Wrap wraps s to w cells at spaces only, so hyphenated names stay whole.
func Wrap(s string, w int) string {
	return ReleaseHyphens(ansi.Wrap(HoldHyphens(s), max(w, 1), " "))
}

// JoinEnds puts left and right on one line of w cells, right aligned. When
// both do not fit, left is cut (with an ellipsis) so the right end, a
// count or a hint, stays whole; a right end wider than the line is cut.
func JoinEnds(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw+1 >= w {
		return Truncate(right, w)
	}
	left = Truncate(left, w-rw-1)
	return left + strings.Repeat(" ", w-ansi.StringWidth(left)-rw) + right
}
