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

// Isolate unsets every CLAPPER_ variable and points HOME, the XDG folders
// and CLAPPER_CONFIG_DIR at a fresh temporary folder; the returned function
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
	return func() { os.RemoveAll(root) }
}
