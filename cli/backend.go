package cli

import (
	"context"
	"fmt"

	"clapper/record"
	"clapper/studio"
)

// sandboxURLHint explains why an embedded sandbox's result URL stops
// answering once the command ends.
const sandboxURLHint = "  (the embedded sandbox serves these URLs only while a clapper command runs; --wait saves the files)"

// open starts this command's backend through the studio, as the TUI does,
// so settings, flags and environment resolve alike for every front end
// (the settings file's request_budget included). It says once per process
// when results are simulated. What it sends is recorded as the CLI's.
func (app *App) open(ctx context.Context, o studio.Options) (*studio.Studio, error) {
	o.Watcher = app.watcher
	o.Origin = record.OriginCLI
	s, err := studio.Open(ctx, app.Config, o)
	if err != nil {
		return nil, err
	}
	if s.Sandbox() && !app.quietSandbox {
		fmt.Fprintln(app.Err, "clapper: "+studio.SandboxNotice)
		app.quietSandbox = true
	}
	return s, nil
}

// openStore opens only the history of the configured backend, through the
// studio, for commands that read or change history without the service.
func (app *App) openStore(ctx context.Context) (record.Store, error) {
	return studio.OpenHistory(ctx, app.Config)
}
