// Command clapper is a terminal studio for the svc generative-media
// service: with no subcommand the TUI, otherwise the scripting CLI.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"charm.land/fang/v2"

	"clapper/api"
	"clapper/cli"
	"clapper/mcp"
	"clapper/studio"
	"clapper/ui"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func main() {
	app := &cli.App{Out: os.Stdout, Err: os.Stderr, In: os.Stdin, RunTUI: ui.Run,
		RunMCP: func(ctx context.Context, cfg studio.Config, o cli.MCPOptions) error {
			return mcp.Serve(ctx, cfg, mcp.ServeOptions{HTTP: o.HTTP, Toolsets: o.Toolsets, Tools: o.Tools, ReadOnly: o.ReadOnly,
				Compact: o.Compact, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Version: version})
		}}
	signals := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		// A closed terminal window (or tmux kill-session) hangs up: the
		// history is then closed as on ctrl+c, its write-ahead log
		// checkpointed and the poller's lease given back, so the next start
		// neither replays the log nor waits for the lease. Under nohup the
		// hang-up stays ignored: catching it would undo that.
		signals = append(signals, syscall.SIGHUP)
	}
	opts := []fang.Option{
		fang.WithNotifySignal(signals...),
		fang.WithErrorHandler(func(w io.Writer, _ fang.Styles, err error) {
			if errors.Is(err, context.Canceled) {
				return // stopped by ctrl+c or SIGTERM, as asked: exit 130 says so
			}
			// Errors quote the service's words: no escape sequence of theirs
			// may reach the terminal.
			fmt.Fprintf(w, "clapper: %s\n", api.CleanText(err.Error()))
		}),
	}
	if version != "" {
		opts = append(opts, fang.WithVersion(version))
	}
	if err := fang.Execute(context.Background(), cli.NewRoot(app), opts...); err != nil {
		os.Exit(cli.ExitCode(err))
	}
}
