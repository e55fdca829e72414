package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// The caller's folder is neither used nor removed: the suite once deleted a
// user's settings.json this way.
func TestIsolateLeavesTheCallersFoldersAlone(t *testing.T) {
	users := t.TempDir()
	settings := filepath.Join(users, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"api_key":"sk-users-own"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAPPER_CONFIG_DIR", users)
	t.Setenv("CLAPPER_API_KEY", "sk-users-own")
	t.Setenv("HOME", users)
	t.Setenv("XDG_CONFIG_HOME", users)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("TERM", "dumb")
	t.Setenv("TMUX", "/tmp/tmux-0/default,1,0")

	cleanup := Isolate()
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TMUX") != "" || os.Getenv("TERM") != "xterm-256color" {
		t.Errorf("the caller's terminal leaks in: NO_COLOR=%q TMUX=%q TERM=%q", os.Getenv("NO_COLOR"), os.Getenv("TMUX"), os.Getenv("TERM"))
	}
	for _, name := range []string{"CLAPPER_CONFIG_DIR", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		if got := os.Getenv(name); got == "" || got == users {
			t.Errorf("%s = %q, want a fresh folder", name, got)
		}
	}
	if key, ok := os.LookupEnv("CLAPPER_API_KEY"); ok {
		t.Errorf("CLAPPER_API_KEY is still set (%q)", key)
	}
	own := os.Getenv("CLAPPER_CONFIG_DIR")
	cleanup()

	if _, err := os.Stat(settings); err != nil {
		t.Errorf("the caller's settings are gone: %v", err)
	}
	if _, err := os.Stat(own); !os.IsNotExist(err) {
		t.Errorf("the isolated folder %s is left behind (%v)", own, err)
	}
}
