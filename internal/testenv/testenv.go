// Package testenv makes a test binary hermetic: it runs on a home, config,
// data and cache of its own, never the caller's. A test that inherited a
// CLAPPER_CONFIG_DIR once ran on the user's settings (and a live key) and
// removed that folder at its end.
package testenv

import (
	"os"
	"path/filepath"
	"strings"
)

// Isolate unsets every CLAPPER_ variable, points HOME, the XDG folders
// and CLAPPER_CONFIG_DIR at a fresh temporary folder and makes the terminal
// a plain one (no NO_COLOR, no multiplexer: TERM=xterm-256color) and the
// user tester; the returned function
// removes that folder, and only it. Call it first in TestMain, before any
// child process is started: children inherit the isolated environment.
func Isolate() (cleanup func()) {
	root, err := os.MkdirTemp("", "clapper-test-home")
	if err != nil {
		panic("testenv: " + err.Error())
	}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "CLAPPER_") {
			os.Unsetenv(name)
		}
	}
	for name, sub := range map[string]string{
		"HOME":            "home",
		"XDG_CONFIG_HOME": "xdg-config",
		"XDG_DATA_HOME":   "xdg-data",
		"XDG_CACHE_HOME":  "xdg-cache",
		"XDG_STATE_HOME":  "xdg-state",
		"XDG_RUNTIME_DIR": "xdg-runtime",
		// The one folder clapper reads settings from.
		"CLAPPER_CONFIG_DIR": "config",
	} {
		dir := filepath.Join(root, sub)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			panic("testenv: " + err.Error())
		}
		os.Setenv(name, dir)
	}
	// The terminal is a plain 256-colour one, whatever the caller's: a
	// test that needs NO_COLOR, a multiplexer or a terminal of its own
	// sets it itself.
	for _, name := range []string{"NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLORTERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION",
		"TMUX", "STY", "WT_SESSION", "VTE_VERSION", "KITTY_WINDOW_ID", "COLORFGBG"} {
		os.Unsetenv(name)
	}
	os.Setenv("TERM", "xterm-256color")
	// Who sends (a team's user@host) is one user's, whoever runs the tests.
	os.Setenv("USER", "tester")
	return func() { os.RemoveAll(root) }
}
