package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

func newFollowCmd(app *App) *cobra.Command {
	var o createOpts
	cmd := &cobra.Command{
		Use:   "follow TASK_ID",
		Short: "Follow a task again, one given up as lost too",
		Long: "Reads TASK_ID from the service now. When the service knows it, a task given up as lost (the " +
			"service had said for ten minutes that it does not know it) is followed again, in this run and the " +
			"next clapper watch; like create --wait, follow then waits until the task ends and downloads its " +
			"results. A task already finished is downloaded at once. The task must be in this backend's history.",
		Example: "  clapper follow 812345678901234567",
		Args:    exactArgs(1, "a TASK_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id := strings.TrimSpace(args[0])
			if err := api.CheckID(id); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			s, err := app.open(ctx, studio.Options{DownloadDir: o.downloadDir, NoDownload: o.noDownload})
			if err != nil {
				return err
			}
			defer s.Close()
			t, err := s.Record().TaskByID(ctx, id)
			if errors.Is(err, record.ErrNotFound) {
				return fmt.Errorf("task %s is not in this backend's history (%s); clapper get %s reads it once", id, app.Config.Backend(), id)
			}
			if err != nil {
				return err
			}
			t, wasLost, err := s.Refollow(ctx, t)
			if err != nil {
				return studio.DescribeAPIError(err)
			}
			if wasLost {
				fmt.Fprintf(app.Err, "task %s is followed again: the service knows it (%s)\n", id, api.DescribeState(t.State))
			}
			if !api.IsTerminal(t.State) {
				return app.wait(ctx, s, t.Operation, t.Model, &api.Task{TaskID: id, State: t.State}, o)
			}
			if t.State != api.StateSuccess {
				return fmt.Errorf("task %s ended %s; there is no result", id, api.DescribeState(t.State))
			}
			fmt.Fprintf(app.Out, "task %s: %s\n", id, api.DescribeState(t.State))
			if o.noDownload || len(t.Creations) == 0 {
				return nil
			}
			if err := s.Download(ctx, t); err != nil {
				return downloadStopped(ctx, id, err)
			}
			return app.settle(ctx, s, id, o)
		},
	}
	cmd.Flags().BoolVar(&o.noDownload, "no-download", false, "Do not download the results")
	cmd.Flags().StringVar(&o.downloadDir, "download-dir", "", "Save results here (default\n"+downloadDirHint+")")
	return cmd
}
