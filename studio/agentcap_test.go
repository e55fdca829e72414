package studio

import (
	"strings"
	"testing"
)

// The agent credit cap comes from the environment over the settings file
// (the mcp command's --daily-cap goes over both); 0 or off is no cap, and
// anything else is refused naming the variable.
func TestAgentCreditCapResolves(t *testing.T) {
	isolate(t)
	t.Setenv(EnvAgentCreditCap, "")
	if _, err := SaveSettings(Settings{AgentCreditCap: 300}); err != nil {
		t.Fatal(err)
	}
	c := Config{DataDir: t.TempDir()}
	if err := c.Resolve(); err != nil || c.AgentCreditCap != 300 {
		t.Fatalf("saved cap: %d, %v", c.AgentCreditCap, err)
	}
	for env, want := range map[string]int64{"120": 120, "off": 0, "0": 0} {
		t.Setenv(EnvAgentCreditCap, env)
		c = Config{DataDir: t.TempDir()}
		if err := c.Resolve(); err != nil || c.AgentCreditCap != want {
			t.Errorf("%s=%s: cap %d, %v; want %d", EnvAgentCreditCap, env, c.AgentCreditCap, err, want)
		}
	}
	for _, bad := range []string{"-5", "lots", "1.5"} {
		t.Setenv(EnvAgentCreditCap, bad)
		c = Config{DataDir: t.TempDir()}
		if err := c.Resolve(); err == nil || !IsUsage(err) || !strings.Contains(err.Error(), EnvAgentCreditCap) {
			t.Errorf("%s=%s: %v", EnvAgentCreditCap, bad, err)
		}
	}
}
