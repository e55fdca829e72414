package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/api/track"
	"clapper/studio"
)

func newWatchCmd(app *App) *cobra.Command {
	var o createOpts
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Follow tasks in flight and download results",
		Long: "Picks up every task that history holds as created, queueing or processing (from this run or " +
			"any earlier one), follows it with the adaptive watcher until it succeeds or fails, prints each " +
			"state change, and downloads results as tasks succeed. Downloads that an earlier clapper left " +
			"unfinished (stopped, or killed) are resumed first; a file another clapper is fetching is left " +
			"to it. Requests of unknown outcome are listed first: they are never resent.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return app.watchAll(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.noDownload, "no-download", false, "Do not download results")
	cmd.Flags().StringVar(&o.downloadDir, "download-dir", "", "Save results here (default\n"+downloadDirHint+")")
	return cmd
}

func (app *App) watchAll(ctx context.Context, o createOpts) error {
	s, err := app.open(ctx, studio.Options{DownloadDir: o.downloadDir})
	if err != nil {
		return err
	}
	defer s.Close()
	store, w := s.Store, s.Watcher
	unknown, err := store.UnknownOutcomes(ctx)
	if err != nil {
		return err
	}
	for _, t := range unknown {
		if !track.OutcomeUnknown(t, time.Now()) {
			fmt.Fprintf(app.Err, "request #%d (%s %s) is being sent by another clapper; its answer will be recorded there\n",
				t.LocalID, t.Operation, orDash(t.Model))
			continue
		}
		fmt.Fprintf(app.Err, "request #%d (%s %s, %s) has an unknown outcome: resolve it with clapper history resolve %d TASK_ID, or abandon it\n",
			t.LocalID, t.Operation, orDash(t.Model), t.CreatedAt.Local().Format("2006-01-02 15:04"), t.LocalID)
	}
	if err := w.Load(ctx); err != nil {
		return err
	}
	lost, err := store.LostTasks(ctx)
	if err != nil {
		return err
	}
	for _, n := range lost {
		fmt.Fprintf(app.Err, "task %s (%s, %s) is not followed: the service answered %d reads in a row that it does not know it (%s, last %s); clapper follow %s tries again\n",
			api.CleanLine(n.TaskID), n.Operation, api.DescribeState(n.State), n.Count, api.CleanText(n.Reason), n.LastAt.Local().Format("2006-01-02 15:04"), api.CleanLine(n.TaskID))
	}
	d := s.Downloader
	var unsaved int // tasks with a result that could not be saved
	if !o.noDownload {
		// Downloads a killed clapper left (or queued and never started) are
		// finished first, whether or not any task is in flight.
		stale, err := d.Interrupted(ctx)
		if err != nil {
			return err
		}
		if len(stale) > 0 {
			fmt.Fprintf(app.Out, "resuming %d interrupted download(s)\n", len(stale))
		}
		var tasks []string
		for _, dl := range stale {
			if !slices.Contains(tasks, dl.TaskID) {
				tasks = append(tasks, dl.TaskID)
			}
		}
		for _, id := range tasks {
			if err := app.settle(ctx, d, id, o); err != nil {
				if ctx.Err() != nil {
					return err
				}
				unsaved++
				fmt.Fprintln(app.Err, "  "+api.CleanText(err.Error()))
			}
		} // Videos of multi-scene jobs a stopped or killed clapper was saving.
		saved, err := s.Scenes().ResumeDownloads(ctx)
		for _, p := range saved {
			fmt.Fprintf(app.Err, "  saved %s (a multi-scene video an earlier clapper was saving)\n", p)
		}
		if err != nil {
			if ctx.Err() != nil {
				return &ExitError{Code: exitInterrupted, Err: errors.New("stopped saving the videos of multi-scene jobs; the next clapper watch resumes them")}
			}
			unsaved++
			fmt.Fprintln(app.Err, "  "+api.CleanText(err.Error()))
		}
	}
	if w.Watching() == 0 {
		if _, err := fmt.Fprintln(app.Out, "No task is in flight."); err != nil {
			return err
		}
		if unsaved > 0 {
			return fmt.Errorf("results of %d task(s) could not be saved", unsaved)
		}
		return nil
	}
	fmt.Fprintf(app.Out, "following %d task(s); Ctrl-C stops (they are picked up again next time)\n", w.Watching())
	s.Follow(ctx)
	var failed int
	for left := w.Watching(); left > 0; {
		select {
		case <-ctx.Done():
			return &ExitError{Code: exitInterrupted, Err: fmt.Errorf("stopped; %d task(s) still in flight are picked up by the next clapper watch", left)}
		case ev := <-w.Events():
			switch ev.Kind {
			case track.EventLost:
				left--
				fmt.Fprintf(app.Err, "  the service does not know task %s (%s); it is no longer followed, in this run or the next (history keeps it as it was; clapper follow %s tries again)\n", ev.TaskID, api.CleanText(ev.Err.Error()), ev.TaskID)
			case track.EventPollFailed:
				fmt.Fprintf(app.Err, "  reading task %s failed (%s); retrying\n", ev.TaskID, api.CleanText(ev.Err.Error()))
			case track.EventPaused:
				fmt.Fprintf(app.Err, "  %s\n", track.PauseNotice(ev, time.Now()))
			case track.EventState:
				line := fmt.Sprintf("%s  %s %s: %s", time.Now().Format("15:04:05"), ev.Operation, ev.TaskID, api.DescribeState(ev.To))
				if ev.Result != nil && ev.Result.ErrCode != "" {
					line += " (" + api.CleanText(ev.Result.ErrCode) + ": " + api.Explain(ev.Result.ErrCode, 0) + ")"
				}
				fmt.Fprintln(app.Out, line)
				if ev.To != api.StateSuccess && api.IsTerminal(ev.To) {
					failed++ // failed, or cancelled: no result either way
				}
				if api.IsTerminal(ev.To) {
					left--
				}
				if ev.To == api.StateSuccess && !o.noDownload && ev.Result != nil && len(ev.Result.Creations) > 0 {
					err := d.QueueResults(ctx, ev.TaskID, ev.Operation, time.Now(), ev.Result)
					if err == nil {
						err = app.settle(ctx, d, ev.TaskID, o)
					}
					if err != nil {
						if ctx.Err() != nil {
							return downloadStopped(ctx, ev.TaskID, err)
						}
						unsaved++
						fmt.Fprintln(app.Err, "  "+api.CleanText(err.Error()))
					}
				}
			}
		}
	}
	switch {
	case failed > 0:
		return fmt.Errorf("%d task(s) failed", failed)
	case unsaved > 0:
		return fmt.Errorf("results of %d task(s) could not be saved", unsaved)
	}
	return nil
}

// downloadDirHint is where results land by default, in lines that fit the
// flag column of an 80-column help page.
const downloadDirHint = "~/Videos/clapper, ~/Pictures/clapper or\n~/Music/clapper, else DATA_DIR/downloads"
