package api

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// CleanText makes untrusted text (from the server or from files) safe to
// print: escape sequences are removed, then every control character but
// newline and tab, since ansi.Strip keeps \r, \b, BEL and C1 controls.
func CleanText(s string) string {
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

// ByteSize is a size as people read it: "812 B", "14 KB", "3.2 MB", "2 GB".
// It is the one byte-size formatter of clapper; api holds it because its
// own errors need it and api imports nothing of ours.
func ByteSize(n int64) string {
	oneDecimal := func(f float64) string {
		return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
	}
	switch {
	case n >= 1<<30:
		return oneDecimal(float64(n)/(1<<30)) + " GB"
	case n >= 1<<20:
		return oneDecimal(float64(n)/(1<<20)) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// CleanLine is CleanText kept on one line: newlines and tabs, with the
// spaces around them, fold to one space. For lists, status lines and
// anything else that must not break the layout.
func CleanLine(s string) string {
	s = CleanText(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return s
}
