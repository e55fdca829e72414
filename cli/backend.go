package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"clapper/api"
	"clapper/api/sandbox"
)

// sandboxStateFile keeps the embedded sandbox's tasks between runs, so a
// task created by one command is still there, still progressing, in the next.
const sandboxStateFile = "sandbox-state.json"

// sandboxURLHint explains why an embedded sandbox's result URL stops
// answering once the command ends.
const sandboxURLHint = "  (the embedded sandbox serves these URLs only while a clapper command runs; --wait saves the files)"

// SandboxNotice is what clapper says whenever results are simulated.
const SandboxNotice = "sandbox — results are simulated (no API key configured)"

// connect returns a client for the configured service, or for the embedded
// sandbox when no API key is configured; close stops the sandbox.
func (app *App) connect(ctx context.Context) (*api.Client, func(), error) {
	cfg := app.Config
	if cfg.APIKey != "" {
		c, err := api.NewClient(cfg.BaseURL, cfg.APIKey, api.WithTimeout(cfg.Timeout))
		if err != nil {
			return nil, nil, err
		}
		return c, func() {}, nil
	}
	base, _, stop, err := sandbox.Listen(ctx, "", sandbox.Config{StatePath: filepath.Join(cfg.DataDir, sandboxStateFile)})
	if err != nil {
		return nil, nil, fmt.Errorf("start the embedded sandbox: %w", err)
	}
	if !app.quietSandbox {
		fmt.Fprintln(app.Err, "clapper: "+SandboxNotice)
		app.quietSandbox = true
	}
	c, err := api.NewClient(base, sandbox.EmbeddedToken, api.WithTimeout(cfg.Timeout))
	if err != nil {
		stop()
		return nil, nil, err
	}
	return c, func() { stop() }, nil
}
