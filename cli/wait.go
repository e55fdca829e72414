package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/api/track"
	"clapper/history"
	"clapper/studio"
)

// wait follows a task with the same watcher the TUI uses (so every state
// change is in history), then downloads its results.
func (app *App) wait(ctx context.Context, s *studio.Studio, op api.Operation, model string, task *api.Task, o createOpts) error {
	w := s.Watcher
	id := task.Identifier()
	var final *track.Event
	if !api.IsTerminal(task.State) {
		if !o.json {
			writeCreated(app.Err, op, task)
		}
		w.Watch(id, op, model, task.State, time.Now())
		s.Follow(ctx)
		for final == nil {
			select {
			case <-ctx.Done():
				return &ExitError{Code: exitInterrupted, Err: fmt.Errorf("stopped waiting for task %s; it is in clapper history (clapper watch follows it, clapper get %s reads it)", id, id)}
			case ev := <-w.Events():
				switch {
				case ev.Kind == track.EventPollFailed && !o.json:
					fmt.Fprintf(app.Err, "  reading task %s failed (%s); retrying\n", id, api.CleanText(ev.Err.Error()))
				case ev.Kind == track.EventPaused && !o.json:
					fmt.Fprintf(app.Err, "  %s\n", track.PauseNotice(ev, time.Now()))
				case ev.Kind == track.EventLost:
					return fmt.Errorf("the service does not know task %s (%s); it is no longer followed, and history keeps it as it was (clapper follow %s tries again)", id, api.CleanText(ev.Err.Error()), id)
				case ev.Kind == track.EventState && !o.json:
					fmt.Fprintf(app.Err, "  %s: %s\n", time.Now().Format("15:04:05"), api.DescribeState(ev.To))
				}
				if ev.Kind == track.EventState && api.IsTerminal(ev.To) {
					final = &ev
				}
			}
		}
	}
	raw, state := task.Raw, task.State
	if final != nil {
		state = final.To
		if final.Job != nil {
			raw = final.Job.Raw
		} else {
			raw = final.Result.Raw
		}
	}
	if o.json {
		if err := writeRaw(app.Out, raw); err != nil {
			return err
		}
	} else if err := writeResult(app.Out, op, id, raw); err != nil {
		return err
	}
	if state == api.StateFailed {
		return fmt.Errorf("task %s failed", id)
	}
	if state != api.StateSuccess && api.IsTerminal(state) {
		return fmt.Errorf("task %s ended %s: the service will not finish it, and there is no result (an off-peak task not made within 48 hours is cancelled and its credits returned)", id, state)
	}
	if o.noDownload {
		return nil
	}
	if final == nil {
		// A synchronous operation: its answer is the result.
		if res := track.SyncResult(task); res != nil {
			return app.download(ctx, s.Downloader, op, id, res, o)
		}
		return nil
	}
	res := final.Result
	if j := final.Job; j != nil && j.SignedURL != "" {
		// The composed video: its signed URL lasts under 3 minutes, so now.
		res = &api.TaskResult{ID: id, State: state, Creations: []api.Creation{{URL: j.SignedURL}}}
	}
	if res == nil || len(res.Creations) == 0 {
		return nil
	}
	return app.download(ctx, s.Downloader, op, id, res, o)
}

// download saves the results of task id with the studio's downloader (one
// per command: its owner token names this process in the history's claims).
func (app *App) download(ctx context.Context, d *track.Downloader, op api.Operation, id string, res *api.TaskResult, o createOpts) error {
	if err := d.QueueResults(ctx, id, op, time.Now(), res); err != nil {
		return downloadStopped(ctx, id, err)
	}
	return app.settle(ctx, d, id, o)
}

// settle waits until every result of task id is saved or has failed (a file
// another clapper is fetching is waited for, not fetched twice) and says
// which.
func (app *App) settle(ctx context.Context, d *track.Downloader, id string, o createOpts) error {
	dls, err := d.Settle(ctx, id)
	if err != nil {
		return downloadStopped(ctx, id, err)
	}
	var failed int
	for _, dl := range dls {
		switch dl.Status {
		case history.DownloadDone:
			if !o.json {
				fmt.Fprintf(app.Err, "  saved %s (%s)\n", dl.Path, api.ByteSize(dl.Bytes))
			}
		default:
			failed++
			fmt.Fprintf(app.Err, "  result %d of task %s not saved: %s %s\n", dl.Index+1, id, dl.Status, api.CleanText(dl.Error))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d result file(s) could not be saved; their URLs are listed above", failed)
	}
	return nil
}

// downloadStopped is the error of a download that ended early: Ctrl-C is
// exit 130, and the next clapper watch resumes what was fetched so far.
func downloadStopped(ctx context.Context, id string, err error) error {
	if ctx.Err() != nil {
		return &ExitError{Code: exitInterrupted, Err: fmt.Errorf("stopped downloading the results of task %s; clapper watch resumes them", id)}
	}
	return err
}

func newResubmitCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "resubmit #",
		Short: "Send a refused request again",
		Long:  "Sends a refused request again, e.g. after QuotaExceeded; # is its number in clapper history.",
		Args:  exactArgs(1, "the # of a request (from clapper history)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			localID, err := parseLocalID(args[0])
			if err != nil {
				return err
			}
			s, err := app.open(cmd.Context(), studio.Options{SendOnly: true})
			if err != nil {
				return err
			}
			defer s.Close()
			store := s.Store
			t, err := store.Task(cmd.Context(), localID)
			if err != nil {
				return explainConflict(cmd.Context(), store, localID, err, "resubmitted", "refused requests")
			}
			sub, err := s.Tracker.Resubmit(cmd.Context(), localID, t.Operation)
			if err != nil {
				if errors.Is(err, history.ErrConflict) || errors.Is(err, history.ErrNotFound) {
					return explainConflict(cmd.Context(), store, localID, err, "resubmitted", "refused requests")
				}
				return submitError(err)
			}
			if asJSON {
				return writeRaw(app.Out, sub.Task.Raw)
			}
			return writeCreated(app.Out, t.Operation, sub.Task)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print the service's JSON answer")
	return cmd
}
