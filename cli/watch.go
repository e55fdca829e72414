package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/studio"
)

func newWatchCmd(app *App) *cobra.Command {
	var o createOpts
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Follow tasks in flight and download results",
		Long: "Picks up every task that history holds as created, queueing or processing (from this run or " +
			"any earlier one), follows it with the adaptive watcher until it succeeds or fails, prints each " +
			"state change, and downloads results as tasks succeed (in a team's history, those of the tasks " +
			"sent from this copy of clapper: a teammate's copy saves theirs). Downloads that an earlier " +
			"clapper left unfinished (stopped, or killed), and the results of this copy's tasks that ended " +
			"while it was closed, are saved first; a file another clapper is fetching is left to it. " +
			"Requests of unknown outcome are listed first: they are never resent.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return app.watchAll(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.noDownload, "no-download", false, "Do not download results")
	cmd.Flags().StringVar(&o.downloadDir, "download-dir", "", "Save results here (default\n"+downloadDirHint+")")
	return cmd
}

func (app *App) watchAll(ctx context.Context, o createOpts) error {
	s, err := app.open(ctx, studio.Options{DownloadDir: o.downloadDir, NoDownload: o.noDownload})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := app.tellUnknown(ctx, s); err != nil {
		return err
	}
	following, err := s.FollowInFlight(ctx)
	if err != nil {
		return err
	}
	if err := app.tellLost(ctx, s); err != nil {
		return err
	}
	var unsaved int // tasks with a result that could not be saved
	if !o.noDownload {
		if unsaved, err = app.resumeDownloads(ctx, s, o); err != nil {
			return err
		}
	}
	if following == 0 {
		if _, err := fmt.Fprintln(app.Out, "No task is in flight."); err != nil {
			return err
		}
		if unsaved > 0 {
			return fmt.Errorf("results of %d task(s) could not be saved", unsaved)
		}
		return nil
	}
	fmt.Fprintf(app.Out, "following %d task(s); Ctrl-C stops (they are picked up again next time)\n", following)
	failed, more, err := app.followAll(ctx, s, following, o)
	unsaved += more
	switch {
	case err != nil:
		return err
	case failed > 0:
		return fmt.Errorf("%d task(s) failed", failed)
	case unsaved > 0:
		return fmt.Errorf("results of %d task(s) could not be saved", unsaved)
	}
	return nil
}

// tellUnknown lists the requests whose outcome is unknown: never resent.
func (app *App) tellUnknown(ctx context.Context, s *studio.Studio) error {
	unknown, err := s.Record().UnknownOutcomes(ctx)
	if err != nil {
		return err
	}
	for _, t := range unknown {
		if !studio.OutcomeUnknown(t, s.Now()) {
			fmt.Fprintf(app.Err, "request #%d (%s %s) is being sent by another clapper; its answer will be recorded there\n",
				t.LocalID, t.Operation, orDash(t.Model))
			continue
		}
		fmt.Fprintf(app.Err, "request #%d (%s %s, %s) has an unknown outcome: resolve it with clapper history resolve %d TASK_ID, or abandon it\n",
			t.LocalID, t.Operation, orDash(t.Model), t.CreatedAt.Local().Format("2006-01-02 15:04"), t.LocalID)
	}
	return nil
}

// tellLost lists the tasks no longer followed because the service does
// not know them.
func (app *App) tellLost(ctx context.Context, s *studio.Studio) error {
	lost, err := s.Record().LostTasks(ctx)
	if err != nil {
		return err
	}
	for _, n := range lost {
		fmt.Fprintf(app.Err, "task %s (%s, %s) is not followed: the service answered %d reads in a row that it does not know it (%s, last %s); clapper follow %s tries again\n",
			api.CleanLine(n.TaskID), n.Operation, api.DescribeState(n.State), n.Count, api.CleanText(n.Reason), n.LastAt.Local().Format("2006-01-02 15:04"), api.CleanLine(n.TaskID))
	}
	return nil
}

// resumeDownloads finishes the downloads a killed clapper left (or queued
// and never started), whether or not any task is in flight, and the videos
// of multi-scene jobs it was saving; unsaved counts what could not be.
func (app *App) resumeDownloads(ctx context.Context, s *studio.Studio, o createOpts) (unsaved int, err error) {
	stale, err := s.InterruptedDownloads(ctx)
	if err != nil {
		return 0, err
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
	caught, err := s.CatchUpSaves(ctx)
	if err != nil {
		return 0, err
	}
	if len(caught) > 0 {
		fmt.Fprintf(app.Out, "saving the results of %d task(s) sent from here that ended while clapper was closed\n", len(caught))
	}
	for _, id := range caught {
		if !slices.Contains(tasks, id) {
			tasks = append(tasks, id)
		}
	}
	for _, id := range tasks {
		if err := app.settle(ctx, s, id, o); err != nil {
			if ctx.Err() != nil {
				return unsaved, err
			}
			unsaved++
			fmt.Fprintln(app.Err, "  "+api.CleanText(err.Error()))
		}
	}
	saved, err := s.Scenes().ResumeDownloads(ctx)
	for _, p := range saved {
		fmt.Fprintf(app.Err, "  saved %s (a multi-scene video an earlier clapper was saving)\n", p)
	}
	if err != nil {
		if ctx.Err() != nil {
			return unsaved, &ExitError{Code: exitInterrupted, Err: errors.New("stopped saving the videos of multi-scene jobs; the next clapper watch resumes them")}
		}
		unsaved++
		fmt.Fprintln(app.Err, "  "+api.CleanText(err.Error()))
	}
	return unsaved, nil
}

// followAll prints every change of the tasks followed until the last of
// them ends, saving each success's results as it comes.
func (app *App) followAll(ctx context.Context, s *studio.Studio, left int, o createOpts) (failed, unsaved int, err error) {
	events := s.AwaitAll(ctx)
	for left > 0 {
		ev, ok := <-events
		if !ok {
			return failed, unsaved, &ExitError{Code: exitInterrupted, Err: fmt.Errorf("stopped; %d task(s) still in flight are picked up by the next clapper watch", left)}
		}
		switch ev.Kind {
		case studio.EventLost:
			left--
			fmt.Fprintf(app.Err, "  the service does not know task %s (%s); it is no longer followed, in this run or the next (history keeps it as it was; clapper follow %s tries again)\n", ev.TaskID, api.CleanText(ev.Err.Error()), ev.TaskID)
		case studio.EventPollFailed:
			fmt.Fprintf(app.Err, "  reading task %s failed (%s); retrying\n", ev.TaskID, api.CleanText(ev.Err.Error()))
		case studio.EventPaused:
			fmt.Fprintf(app.Err, "  %s\n", studio.PauseNotice(ev, s.Now()))
		case studio.EventState:
			app.printState(s, ev)
			if !api.IsTerminal(ev.To) {
				continue
			}
			left--
			if ev.To != api.StateSuccess {
				failed++ // failed, or cancelled: no result either way
				continue
			}
			if o.noDownload || ev.Result == nil || len(ev.Result.Creations) == 0 {
				continue
			}
			if t, err := s.Record().TaskByID(ctx, ev.TaskID); err == nil && !s.SentHere(t) {
				// A teammate's: the copy that sent it saves it (studio.SentHere).
				fmt.Fprintf(app.Err, "  sent by %s: saved by that copy of clapper, not here\n", api.CleanLine(t.SentBy))
				continue
			}
			if err := app.download(ctx, s, ev.TaskID, ev.Result, o); err != nil {
				if ctx.Err() != nil {
					return failed, unsaved, err
				}
				unsaved++
				fmt.Fprintln(app.Err, "  "+api.CleanText(err.Error()))
			}
		}
	}
	return failed, unsaved, nil
}

// printState prints one state change, with the service's error code.
func (app *App) printState(s *studio.Studio, ev studio.Event) {
	line := fmt.Sprintf("%s  %s %s: %s", s.Now().Format("15:04:05"), ev.Operation, ev.TaskID, api.DescribeState(ev.To))
	if ev.Result != nil && ev.Result.ErrCode != "" {
		line += " (" + api.CleanText(ev.Result.ErrCode) + ": " + api.Explain(ev.Result.ErrCode, 0) + ")"
	}
	fmt.Fprintln(app.Out, line)
}

// downloadDirHint is where results land by default, in lines that fit the
// flag column of an 80-column help page.
const downloadDirHint = "~/Videos/clapper, ~/Pictures/clapper or\n~/Music/clapper, else DATA_DIR/downloads"
