package api

import (
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
