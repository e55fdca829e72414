package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

// wait follows a task with the studio's one event loop (so every state
// change is in history), then saves its results by the one download policy.
func (app *App) wait(ctx context.Context, s *studio.Studio, op api.Operation, model string, task *api.Task, o createOpts) error {
	id := task.Identifier()
	var final *studio.Event
	if !api.IsTerminal(task.State) {
		if !o.json {
			writeCreated(app.Err, op, task, 0)
		}
		events := s.Await(ctx, record.Task{TaskID: id, Operation: op, Model: model, State: task.State, CreatedAt: s.Now()})
		for ev := range events {
			switch {
			case ev.Kind == studio.EventPollFailed && !o.json:
				fmt.Fprintf(app.Err, "  reading task %s failed (%s); retrying\n", id, api.CleanText(ev.Err.Error()))
			case ev.Kind == studio.EventPaused && !o.json:
				fmt.Fprintf(app.Err, "  %s\n", studio.PauseNotice(ev, s.Now()))
			case ev.Kind == studio.EventLost:
				return fmt.Errorf("the service does not know task %s (%s); it is no longer followed, and history keeps it as it was (clapper follow %s tries again)", id, api.CleanText(ev.Err.Error()), id)
			case ev.Kind == studio.EventState && !o.json:
				fmt.Fprintf(app.Err, "  %s: %s\n", s.Now().Format("15:04:05"), api.DescribeState(ev.To))
			}
			if ev.Kind == studio.EventState && api.IsTerminal(ev.To) {
				final = &ev
			}
		}
		if final == nil {
			return &ExitError{Code: exitInterrupted, Err: fmt.Errorf("stopped waiting for task %s; it is in clapper history (clapper watch follows it, clapper get %s reads it)", id, id)}
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
	res := studio.SyncResult(task) // a synchronous operation: its answer is the result
	if final != nil {
		res = final.Result
		if j := final.Job; j != nil && j.SignedURL != "" {
			// The composed video: its signed URL lasts under 3 minutes, so now.
			res = &api.TaskResult{ID: id, State: state, Creations: []api.Creation{{URL: j.SignedURL}}}
		}
	}
	if res == nil || len(res.Creations) == 0 {
		return nil
	}
	return app.download(ctx, s, id, res, o)
}

// download saves the results of task id by the studio's one download
// policy and waits until they are saved.
func (app *App) download(ctx context.Context, s *studio.Studio, id string, res *api.TaskResult, o createOpts) error {
	if err := s.SaveResults(ctx, id, res); err != nil {
		return downloadStopped(ctx, id, err)
	}
	return app.settle(ctx, s, id, o)
}

// settle waits until every result of task id is saved or has failed (a file
// another clapper is fetching is waited for, not fetched twice) and says
// which.
func (app *App) settle(ctx context.Context, s *studio.Studio, id string, o createOpts) error {
	dls, err := s.Settle(ctx, id)
	if err != nil {
		return downloadStopped(ctx, id, err)
	}
	var failed int
	for _, dl := range dls {
		switch dl.Status {
		case record.DownloadDone:
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
			store := s.Record()
			t, err := store.Task(cmd.Context(), localID)
			if err != nil {
				return app.explainConflict(cmd.Context(), store, localID, err, "resubmitted", "refused requests")
			}
			sub, err := s.Resubmit(cmd.Context(), localID, t.Operation)
			if err != nil {
				if errors.Is(err, record.ErrConflict) || errors.Is(err, record.ErrNotFound) {
					return app.explainConflict(cmd.Context(), store, localID, err, "resubmitted", "refused requests")
				}
				return submitError(err)
			}
			if asJSON {
				return writeRaw(app.Out, sub.Task.Raw)
			}
			return writeCreated(app.Out, t.Operation, sub.Task, sub.LocalID)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print the service's JSON answer")
	return cmd
}
