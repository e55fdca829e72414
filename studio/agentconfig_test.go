package studio

import (
	"strings"
	"testing"
)

// What an agent may do comes from a flag, else the environment, else the
// settings file, else the default: a send above 100 credits asks; the
// settings' folders come first, --media-root's after.
func TestAgentSettingsResolveInOrder(t *testing.T) {
	t.Setenv(EnvConfigDir, t.TempDir())
	dir := t.TempDir()
	zero, fifty := int64(0), int64(50)
	for _, c := range []struct {
		name  string
		cfg   Config
		env   string
		saved Settings
		want  int64
	}{
		{"default", Config{}, "", Settings{}, DefaultAgentConfirmAbove},
		{"settings", Config{}, "", Settings{AgentConfirmAbove: &fifty}, 50},
		{"settings off", Config{}, "", Settings{AgentConfirmAbove: &zero}, 0},
		{"environment", Config{}, "off", Settings{AgentConfirmAbove: &fifty}, 0},
		{"flag", Config{AgentConfirmAbove: 7, AgentConfirmAboveGiven: true}, "30", Settings{AgentConfirmAbove: &fifty}, 7},
	} {
		t.Setenv(EnvAgentConfirm, c.env)
		cfg := c.cfg
		cfg.DataDir = dir
		if err := cfg.resolveWith(c.saved); err != nil || cfg.AgentConfirmAbove != c.want {
			t.Errorf("%s: confirm above %d, %v; want %d", c.name, cfg.AgentConfirmAbove, err, c.want)
		}
	}
	t.Setenv(EnvAgentConfirm, "lots")
	cfg := Config{DataDir: dir}
	if err := cfg.resolveWith(Settings{}); err == nil || !strings.Contains(err.Error(), EnvAgentConfirm) {
		t.Errorf("a bad %s: %v", EnvAgentConfirm, err)
	}
	t.Setenv(EnvAgentConfirm, "")
	cfg = Config{DataDir: dir, MediaRoots: []string{"/flag"}}
	if err := cfg.resolveWith(Settings{AgentMediaRoots: []string{"/saved"}, AgentUnconfirmed: true}); err != nil ||
		strings.Join(cfg.MediaRoots, ",") != "/saved,/flag" || !cfg.AgentUnconfirmed {
		t.Errorf("folders %v, unconfirmed %v, %v", cfg.MediaRoots, cfg.AgentUnconfirmed, err)
	}
	if _, err := ParseMediaRoots("relative/dir"); err == nil || !strings.Contains(err.Error(), "full path") {
		t.Errorf("a relative folder: %v", err)
	}
	if roots, err := ParseMediaRoots(dir + ":" + dir + "/"); err != nil || len(roots) != 2 || roots[1] != dir {
		t.Errorf("folders %v, %v", roots, err)
	}
}
