// Package cli is clapper's command line: the scripting commands beside the
// TUI (models, create, get, sandbox, history, voices) and the configuration
// they share. Each command does its work through api, api/catalog and the
// history store, never through the TUI.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"clapper/api/track"
)

// Config is what every command needs to reach the service and the history.
type Config struct {
	BaseURL string
	APIKey  string
	DataDir string
	Timeout time.Duration
	// CallbackListen is a loopback address where the callback receiver
	// listens; CallbackURL is the public URL the service calls, which must
	// reach it (a tunnel or a reverse proxy).
	CallbackListen string
	CallbackURL    string
}

// Env names the environment variables clapper reads.
const (
	EnvBaseURL = "CLAPPER_BASE_URL"
	EnvAPIKey  = "CLAPPER_API_KEY"
	EnvDataDir = "CLAPPER_DATA_DIR"

	EnvCallbackListen = "CLAPPER_CALLBACK_LISTEN"
	EnvCallbackURL    = "CLAPPER_CALLBACK_URL"
)

// ExitError carries a process exit status other than 1.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// exitInterrupted is the status of a command stopped by Ctrl-C (128+SIGINT).
const exitInterrupted = 130

// ExitCode maps an error to the process status: 2 for bad input (nothing
// was sent), 1 for everything else.
func ExitCode(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
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
	Config Config
	Out    io.Writer
	Err    io.Writer
	In     io.Reader
	// RunTUI starts the terminal UI; nil until the UI is wired in.
	RunTUI func(cfg Config) error

	// watcher tunes how --wait follows a task; tests shorten its pauses.
	watcher track.WatcherOptions
	// quietSandbox is set once the sandbox notice was shown.
	quietSandbox bool
}

// NewRoot builds the command tree.
func NewRoot(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:   "clapper",
		Short: "A terminal studio for the svc generative-media service",
		Long: "clapper creates videos, images and audio with the svc service, tracks every task and keeps a history.\n" +
			"With no subcommand it starts the terminal UI. With no API key it runs on an embedded sandbox\n" +
			"that simulates the service, so everything works without an account.",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return app.Config.resolve()
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if app.RunTUI == nil {
				_, err := fmt.Fprint(app.Out, tuiPending)
				return err
			}
			return app.RunTUI(app.Config)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &ExitError{Code: 2, Err: err} })
	root.SetOut(app.Out)
	root.SetErr(app.Err)
	root.SetIn(app.In)
	pf := root.PersistentFlags()
	pf.StringVar(&app.Config.BaseURL, "base-url", "", "Service address, e.g. https://api.example.com (env "+EnvBaseURL+")")
	pf.StringVar(&app.Config.APIKey, "api-key", "", "API token; without one clapper uses the embedded sandbox (env "+EnvAPIKey+")")
	pf.StringVar(&app.Config.DataDir, "data-dir", "", "Where history and sandbox state live (env "+EnvDataDir+", default "+defaultDataDirHint()+")")
	pf.DurationVar(&app.Config.Timeout, "timeout", 60*time.Second, "Bound on each request to the service")
	pf.StringVar(&app.Config.CallbackListen, "callback-listen", "", "Loopback address for the service's status callbacks, e.g. 127.0.0.1:8787 (env "+EnvCallbackListen+")")
	pf.StringVar(&app.Config.CallbackURL, "callback-url", "", "Public URL the service calls, forwarded to --callback-listen (env "+EnvCallbackURL+")")
	root.AddCommand(newModelsCmd(app), newCreateCmd(app), newGetCmd(app), newResubmitCmd(app), newHistoryCmd(app), newVoicesCmd(app), newWatchCmd(app), newSandboxCmd(app))
	return root
}

// resolve fills what flags left unset from the environment and defaults.
func (c *Config) resolve() error {
	if c.BaseURL == "" {
		c.BaseURL = os.Getenv(EnvBaseURL)
	}
	if c.APIKey == "" {
		c.APIKey = os.Getenv(EnvAPIKey)
	}
	if c.DataDir == "" {
		c.DataDir = os.Getenv(EnvDataDir)
	}
	if c.DataDir == "" {
		d, err := defaultDataDir()
		if err != nil {
			return err
		}
		c.DataDir = d
	}
	if c.CallbackListen == "" {
		c.CallbackListen = os.Getenv(EnvCallbackListen)
	}
	if c.CallbackURL == "" {
		c.CallbackURL = os.Getenv(EnvCallbackURL)
	}
	if (c.CallbackListen == "") != (c.CallbackURL == "") {
		return usageError("callbacks need both --callback-listen (where clapper listens) and --callback-url (the public URL the service calls)")
	}
	if c.APIKey != "" && c.BaseURL == "" {
		return usageError("an API key is set but no service address: give --base-url or %s", EnvBaseURL)
	}
	return nil
}

func defaultDataDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "clapper"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to keep data in: give --data-dir or %s", EnvDataDir)
	}
	return filepath.Join(home, ".local", "share", "clapper"), nil
}

func defaultDataDirHint() string {
	return "$XDG_DATA_HOME/clapper or ~/.local/share/clapper"
}

// tuiPending is shown by a bare `clapper` until the terminal UI lands.
const tuiPending = `The terminal UI is not part of this build yet. The command line does everything meanwhile:

  clapper models                      what each operation and model accepts
  clapper create text2video --set model=svcq3-turbo --set prompt='a red fox in snow' --wait
  clapper history                     your tasks, newest first
  clapper voices                      cloned voices and when they expire
  clapper --help                      every command

Without an API key these run on the embedded sandbox: results are simulated.
`

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
