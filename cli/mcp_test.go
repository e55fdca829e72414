package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"clapper/studio"
)

// clapper mcp hands the resolved configuration, the --daily-cap over the
// environment's, and --http to the server; a cap it cannot read and an
// address the server refuses are usage errors (exit 2).
func TestMCPCommandPassesTheCapAndAddress(t *testing.T) {
	t.Setenv(studio.EnvConfigDir, t.TempDir())
	t.Setenv(studio.EnvAgentCreditCap, "900")
	run := func(serveErr error, args ...string) (studio.Config, string, int, string) {
		var (
			got  studio.Config
			addr string
			errb bytes.Buffer
		)
		app := &App{Out: &bytes.Buffer{}, Err: &errb, In: strings.NewReader(""),
			RunMCP: func(_ context.Context, cfg studio.Config, o MCPOptions) error {
				got, addr = cfg, o.HTTP
				return serveErr
			}}
		root := NewRoot(app)
		root.SetArgs(append(args, "--data-dir", t.TempDir()))
		err := root.ExecuteContext(context.Background())
		code := 0
		if err != nil {
			code = ExitCode(err)
			errb.WriteString(err.Error())
		}
		return got, addr, code, errb.String()
	}
	cfg, addr, code, _ := run(nil, "mcp", "--http", "127.0.0.1:8765")
	if code != 0 || cfg.AgentCreditCap != 900 || addr != "127.0.0.1:8765" {
		t.Errorf("environment cap: exit %d, cap %d, addr %q", code, cfg.AgentCreditCap, addr)
	}
	if cfg, _, _, _ := run(nil, "mcp", "--daily-cap", "off"); cfg.AgentCreditCap != 0 {
		t.Errorf("--daily-cap off left cap %d", cfg.AgentCreditCap)
	}
	if cfg, _, _, _ := run(nil, "mcp", "--daily-cap", "250"); cfg.AgentCreditCap != 250 {
		t.Errorf("--daily-cap 250 gave cap %d", cfg.AgentCreditCap)
	}
	if _, _, code, msg := run(nil, "mcp", "--daily-cap", "-3"); code != 2 || !strings.Contains(msg, "--daily-cap") {
		t.Errorf("bad cap: exit %d: %s", code, msg)
	}
	refused := &studio.UsageError{Msg: "--http: only a loopback address"}
	if _, _, code, _ := run(refused, "mcp", "--http", "0.0.0.0:1"); code != 2 {
		t.Errorf("refused address: exit %d, want 2", code)
	}
	if _, _, code, _ := run(errors.New("broken pipe"), "mcp"); code != 1 {
		t.Errorf("a failure while serving: exit %d, want 1", code)
	}
}
