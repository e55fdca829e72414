package cli

import (
	"context"
	"fmt"

	"clapper/api"
	"clapper/history"
	"clapper/studio"
)

// sandboxURLHint explains why an embedded sandbox's result URL stops
// answering once the command ends.
const sandboxURLHint = "  (the embedded sandbox serves these URLs only while a clapper command runs; --wait saves the files)"

// connect returns a client for the configured backend (through the studio,
// as the TUI does); close stops the embedded sandbox.
func (app *App) connect(ctx context.Context) (*api.Client, func(), error) {
	c, stop, err := studio.Connect(ctx, app.Config, nil)
	if err != nil {
		return nil, nil, err
	}
	if !app.Config.Live() && !app.quietSandbox {
		fmt.Fprintln(app.Err, "clapper: "+studio.SandboxNotice)
		app.quietSandbox = true
	}
	return c, stop, nil
}

// openStore opens the history of the configured backend: the sandbox and
// each live service keep their own.
func (app *App) openStore() (*history.Store, error) {
	return studio.OpenHistory(app.Config)
}
