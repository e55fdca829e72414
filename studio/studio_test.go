package studio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv(EnvConfigDir, dir)
	for _, e := range []string{EnvAPIKey, EnvBaseURL, EnvDataDir, EnvSandboxSpeed, EnvCallbackListen, EnvCallbackURL} {
		t.Setenv(e, "")
	}
	return dir
}

// Flags win over the environment, which wins over the settings file; the
// API key from the environment wins over a saved one.
func TestResolveOrder(t *testing.T) {
	isolate(t)
	off := false
	if _, err := SaveSettings(Settings{APIKey: "saved-key-123456", BaseURL: "https://saved.example.com", AutoDownload: &off, RequestBudget: 2, Theme: "light", SandboxSpeed: 10}); err != nil {
		t.Fatal(err)
	}
	c := Config{DataDir: t.TempDir()}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.APIKey != "saved-key-123456" || c.BaseURL != "https://saved.example.com" || c.AutoDownload || c.RequestBudget != 2 || c.Theme != "light" || c.SandboxSpeed != 10 {
		t.Fatalf("saved settings not applied: %+v", c)
	}
	t.Setenv(EnvAPIKey, "env-key-abcdefgh")
	t.Setenv(EnvSandboxSpeed, "60")
	c = Config{DataDir: t.TempDir(), BaseURL: "https://flag.example.com"}
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	if c.APIKey != "env-key-abcdefgh" || c.BaseURL != "https://flag.example.com" || c.SandboxSpeed != 60 {
		t.Fatalf("environment or flag lost to the file: %+v", c)
	}
}

func TestSettingsFileIsPrivate(t *testing.T) {
	dir := isolate(t)
	p, err := SaveSettings(Settings{APIKey: "secret-key-000000"})
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(dir, "settings.json") {
		t.Fatalf("saved in %s", p)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("settings file mode %v, want 0600: it holds the key", st.Mode().Perm())
	}
	if m := MaskKey("secret-key-000000"); strings.Contains(m, "secret") || !strings.HasSuffix(m, "0000") {
		t.Fatalf("mask %q", m)
	}
}

// The sandbox and each live service keep their own history.
func TestHistoryPerBackend(t *testing.T) {
	sb := Config{DataDir: "/d"}
	a := Config{DataDir: "/d", APIKey: "k", BaseURL: "https://api.one.example"}
	b := Config{DataDir: "/d", APIKey: "k", BaseURL: "https://api.two.example:8443/v"}
	paths := map[string]bool{sb.HistoryPath(): true, a.HistoryPath(): true, b.HistoryPath(): true}
	if len(paths) != 3 {
		t.Fatalf("backends share a history: %v", paths)
	}
	if sb.HistoryPath() != "/d/history.db" || a.HistoryPath() != "/d/live-api.one.example.db" {
		t.Fatalf("paths %s %s", sb.HistoryPath(), a.HistoryPath())
	}
	if strings.ContainsAny(filepath.Base(b.HistoryPath()), ":/") {
		t.Fatalf("unsafe file name %s", b.HistoryPath())
	}
}

// A bad setting is named with what is allowed.
func TestCheckNamesTheSetting(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{APIKey: "k"}, "no service address"},
		{Config{APIKey: "k", BaseURL: "ftp://x"}, "not an http(s) URL"},
		{Config{SandboxSpeed: 0.5}, "sandbox speed 0.5"},
		{Config{CallbackListen: "127.0.0.1:1"}, "callbacks need both"},
	} {
		c.cfg.DataDir = t.TempDir()
		err := c.cfg.Resolve()
		if err == nil || !strings.Contains(err.Error(), c.want) || !IsUsage(err) {
			t.Errorf("%+v: %v, want a usage error with %q", c.cfg, err, c.want)
		}
	}
	t.Setenv(EnvSandboxSpeed, "fast")
	c := Config{DataDir: t.TempDir()}
	if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), EnvSandboxSpeed) {
		t.Errorf("a bad %s: %v", EnvSandboxSpeed, err)
	}
}
