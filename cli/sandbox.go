package cli

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"clapper/api/sandbox"
)

func newSandboxCmd(app *App) *cobra.Command {
	var (
		addr string
		cfg  sandbox.Config
	)
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Serve the simulated service for any client",
		Long: "Serves every path of the service on a loopback address, for any client of the service to " +
			"test against, with the same wire format, states, credits, callbacks, expiring result URLs and " +
			"real media files, and what the service documents beyond the spec: the upload flow, stored " +
			"subjects, the account's credits and the system voices. Any token is accepted. It takes the " +
			"merged catalog (--catalog or catalog.json too). State lives in memory unless --state names a file, " +
			"or --data-dir a folder (its sandbox.json, which the studio's embedded sandbox of that folder shares).",
		Example: "  clapper sandbox --addr 127.0.0.1:8765 --speed 60\n" +
			"  clapper sandbox --fail-rate 0.2 --rate-429 0.1 --seed 7 \\\n" +
			"    --state /tmp/sandbox.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f := cmd.Flag("data-dir"); f != nil && f.Changed && cfg.StatePath == "" {
				// The data directory given is where its state lives, as
				// the embedded sandbox's does.
				cfg.StatePath = filepath.Join(app.Config.DataDir, "sandbox.json")
			}
			base, _, stop, err := sandbox.Listen(cmd.Context(), addr, cfg)
			if err != nil {
				return err
			}
			defer stop()
			fmt.Fprintf(app.Out, "sandbox serving the service at %s (results are simulated)\n", base)
			fmt.Fprintf(app.Out, "  point a client at it: CLAPPER_BASE_URL=%s CLAPPER_API_KEY=%s clapper ...\n", base, sandbox.EmbeddedToken)
			fmt.Fprintf(app.Out, "  every task and job it holds: %s/_sandbox/tasks\n  stop with Ctrl-C\n", base)
			<-cmd.Context().Done()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8765", "Loopback address to listen on")
	f.Float64Var(&cfg.Speed, "speed", 1, "Time factor: 60 makes a simulated minute pass\nin a second")
	f.Float64Var(&cfg.FailRate, "fail-rate", 0, "Fraction of tasks that end failed, 0 to 1")
	f.Int64Var(&cfg.Seed, "seed", 0, "Fix ids and outcomes (0 = random)")
	f.StringVar(&cfg.StatePath, "state", "", "Keep state in this file (default: memory only)")
	f.IntVar(&cfg.MaxConcurrent, "max-concurrent", 5, "Tasks run at once per account; more wait in queueing")
	f.Float64Var(&cfg.Rate429, "rate-429", 0, "Fraction of requests answered 429 (half with Retry-After)")
	f.Float64Var(&cfg.Rate5xx, "rate-5xx", 0, "Fraction of requests answered 500")
	f.Float64Var(&cfg.SlowRate, "slow-rate", 0, "Fraction of requests delayed by --slow-delay")
	f.DurationVar(&cfg.SlowDelay, "slow-delay", 2*time.Second, "Delay of slow requests")
	return cmd
}
