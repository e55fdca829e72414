package studio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 19.7: a settings file holding the key, readable by others, is
// made private at once, and the user is told.
func TestOpenSettingsFileWithKeyIsMadePrivate(t *testing.T) {
	dir := isolate(t)
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte(`{"api_key":"secret-key-000000","base_url":"https://svc.example"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o644) // whatever the umask made of it
	c := Config{DataDir: t.TempDir()}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after reading, want 0600", st.Mode().Perm())
	}
	if len(c.Warnings) != 1 || c.Warnings[0] != "settings file "+p+" holds the API key and others could read it (mode 0644); it is now 0600" {
		t.Errorf("warnings %q", c.Warnings)
	}
	// Without a key the mode is the user's business.
	os.WriteFile(p, []byte(`{"theme":"dark"}`), 0o644)
	os.Chmod(p, 0o644)
	c = Config{DataDir: t.TempDir()}
	if err := c.Resolve(); err != nil || len(c.Warnings) != 0 {
		t.Errorf("no key: %v, warnings %q", err, c.Warnings)
	}
}

// Errors about the settings file name it.
func TestBrokenSettingsFileIsNamed(t *testing.T) {
	dir := isolate(t)
	p := filepath.Join(dir, "settings.json")
	os.WriteFile(p, []byte(`{"api_key":`), 0o600)
	c := Config{DataDir: t.TempDir()}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("err %v", err)
	}
}
