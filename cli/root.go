// Package cli is clapper's command line: the scripting commands beside the
// TUI (models, create, get, sandbox, history, voices) and the configuration
// they share. Each command does its work through api, api/catalog and the
// history store, never through the TUI.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/studio"
)

// ExitError carries a process exit status other than 1.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// exitUnknown is the status of a check that could not look (voices
// --expiring with the history out of reach): neither yes (1) nor no (0).
const exitUnknown = 3

// exitInterrupted is the status of a command stopped by Ctrl-C (128+SIGINT).
const exitInterrupted = 130

// ExitCode maps an error to the process status: 2 for bad input (nothing
// was sent), 130 for Ctrl-C, 1 for everything else.
func ExitCode(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	// A command's context ends only when Ctrl-C (or SIGTERM) stops it,
	// whatever it was doing then.
	if errors.Is(err, context.Canceled) {
		return exitInterrupted
	}
	// cobra reports a mistyped subcommand as a plain error.
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return 2
	}
	return 1
}

// App holds the configuration and the streams commands write to, so tests
// run commands without a terminal.
type App struct {
	Config studio.Config
	Out    io.Writer
	Err    io.Writer
	In     io.Reader
	// RunTUI starts the terminal UI; nil until the UI is wired in.
	RunTUI func(ctx context.Context, cfg studio.Config) error
	// RunMCP serves MCP as o says; nil until the server is wired in.
	RunMCP func(ctx context.Context, cfg studio.Config, o MCPOptions) error

	// Clock tells the time of what the commands print and decide (nil: the
	// wall clock; tests fix it).
	Clock func() time.Time

	// watcher tunes how --wait follows a task; tests shorten its pauses.
	watcher studio.WatcherOptions
	// quietSandbox is set once the sandbox notice was shown.
	quietSandbox bool
}

// offline annotates a command that needs no configuration (the catalog):
// it runs even when the settings cannot be read.
const offline = "offline"

// NewRoot builds the command tree.
func NewRoot(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:   "clapper",
		Short: "A terminal studio for the svc generative-media service",
		Long: "clapper creates videos, images and audio with the svc service, tracks every task and keeps " +
			"a history. With no subcommand it starts the terminal UI. With no API key it runs on an embedded " +
			"sandbox that simulates the service, so everything works without an account.",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			app.Config.HistoryURLGiven = cmd.Flags().Changed("history-url")
			err := app.Config.Resolve()
			app.Config.LoadCatalog()
			for _, w := range app.Config.Warnings {
				fmt.Fprintf(app.Err, "clapper: warning: %s\n", api.CleanText(w))
			}
			switch {
			case err == nil:
				return nil
			case cmd.Annotations[offline] != "":
				// The command needs neither the service nor the data: a
				// broken settings file must not keep it from working.
				fmt.Fprintf(app.Err, "clapper: warning: %s (ignored: %s needs no settings)\n", api.CleanText(err.Error()), cmd.Name())
				return nil
			case studio.IsUsage(err):
				return &ExitError{Code: 2, Err: err}
			}
			return err
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if app.RunTUI == nil {
				return usageError("this build has no terminal UI; see clapper --help for the commands")
			}
			return app.RunTUI(cmd.Context(), app.Config)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &ExitError{Code: 2, Err: err} })
	root.SetOut(app.Out)
	root.SetErr(app.Err)
	root.SetIn(app.In)
	// Flag lines break by hand: fang does not wrap them, and the root page
	// leaves them 46 columns of an 80-column terminal.
	pf := root.PersistentFlags()
	pf.StringVar(&app.Config.BaseURL, "base-url", "", "Service address, e.g. https://api.example.com\n(env "+studio.EnvBaseURL+")")
	pf.StringVar(&app.Config.APIKey, "api-key", "", "The API token; without one, the embedded\nsandbox is used (env "+studio.EnvAPIKey+")")
	pf.StringVar(&app.Config.DataDir, "data-dir", "", "Where history and sandbox state live\n(env "+studio.EnvDataDir+"; default\n"+strings.Replace(studio.DefaultDataDirHint, " or ", " or\n", 1)+")")
	pf.StringVar(&app.Config.Catalog, "catalog", "", "Your catalog file of models, fields and ranges\n(default catalog.json in the config directory;\nsee clapper models --json for its form)")
	pf.StringVar(&app.Config.HistoryURL, "history-url", "", "A team's shared history: postgres://USER:PASS@\nHOST/DB (env "+studio.EnvHistoryURL+"; \"\" keeps\nthe history file in the data directory)")
	pf.DurationVar(&app.Config.Timeout, "timeout", studio.DefaultTimeout, "Bound on each request to the service")
	pf.Float64Var(&app.Config.SandboxSpeed, "sandbox-speed", 0, "Embedded sandbox only: 1 is real time, 60 runs\na minute of generation in a second\n(env "+studio.EnvSandboxSpeed+", default 1)")
	pf.StringVar(&app.Config.CallbackListen, "callback-listen", "", "Loopback address for the service's status\ncallbacks, e.g. 127.0.0.1:8787\n(env "+studio.EnvCallbackListen+")")
	pf.StringVar(&app.Config.CallbackURL, "callback-url", "", "Public URL the service calls, forwarded to\n--callback-listen (env "+studio.EnvCallbackURL+")")
	root.AddCommand(newModelsCmd(app), newCreateCmd(app), newGetCmd(app), newResubmitCmd(app), newHistoryCmd(app), newTagCmd(app), newVoicesCmd(app), newSubjectsCmd(app), newAccountCmd(app), newScenesCmd(app), newBatchCmd(app), newWatchCmd(app), newFollowCmd(app), newSandboxCmd(app), newMCPCmd(app))
	// cobra's own completion command, added now so its line fits too.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Short = "Print a shell completion script"
		}
	}
	return root
}

// exactArgs wants n arguments and names them when they are missing, as a
// usage error (exit 2).
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return &ExitError{Code: 2, Err: fmt.Errorf("%s needs %s (got %d argument(s)); see %s --help", cmd.Name(), names, len(args), cmd.CommandPath())}
		}
		return nil
	}
}

func usageError(format string, args ...any) error {
	return &ExitError{Code: 2, Err: fmt.Errorf(format, args...)}
}

// now is the App's clock.
func (app *App) now() time.Time {
	if app.Clock != nil {
		return app.Clock()
	}
	return time.Now()
}
