package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

type historyOpts struct {
	json       bool
	states     []string
	operations []string
	models     []string
	search     string
	since      string
	until      string
	limit      int
}

func newHistoryCmd(app *App) *cobra.Command {
	var o historyOpts
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List tasks, newest first",
		Long: "Lists the tasks in history, newest first, with their state and credits; requests of unknown " +
			"outcome too, with how to resolve them.",
		Example: "  clapper history\n  clapper history --state failed --since 2026-11-01\n" +
			"  clapper history --operation img2video --search fox --json |\n    jq -r .task_id",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return app.listHistory(cmd, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "Print one JSON object per line")
	f.StringSliceVar(&o.states, "state", nil, "Only these states: created, queueing, processing,\nsuccess, failed, unknown, rejected, abandoned")
	f.StringSliceVar(&o.operations, "operation", nil, "Only these operations")
	f.StringSliceVar(&o.models, "model", nil, "Only these models")
	f.StringVar(&o.search, "search", "", "Words that must all occur in the prompt, task id,\nmodel or operation, and the History page's state:,\nop:, model:, tag:, by: (a user or a machine), set:,\nis:keeper, from: and to: (YYYY-MM-DD)")
	f.StringVar(&o.since, "since", "", "Created on or after this day (YYYY-MM-DD) or\ntime (RFC 3339)")
	f.StringVar(&o.until, "until", "", "Created before this date or time")
	f.IntVar(&o.limit, "limit", 50, "How many tasks at most (0 for all)")
	cmd.AddCommand(newResolveCmd(app), newAbandonCmd(app))
	return cmd
}

// unknownState is how an intent of unknown outcome reads to users and scripts.
const unknownState = "unknown"

// sendingState is how a request another live clapper is still sending reads.
const sendingState = "sending"

func (app *App) listHistory(cmd *cobra.Command, o historyOpts) error {
	f, err := o.filter()
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	store, err := app.openStore(cmd.Context())
	if err != nil {
		return err
	}
	defer store.Close()
	var tasks []record.Task
	for {
		if o.limit > 0 {
			f.Limit = min(o.limit-len(tasks), 1000)
		} else {
			f.Limit = 1000
		}
		page, err := store.Tasks(cmd.Context(), f)
		if err != nil {
			return err
		}
		tasks = append(tasks, page.Tasks...)
		if page.Next.IsZero() || (o.limit > 0 && len(tasks) >= o.limit) {
			break
		}
		f.After = page.Next
	}
	if o.json {
		return writeHistoryJSON(app.Out, tasks, app.now())
	}
	return writeHistoryTable(app.Out, tasks, isNarrow(app.Out), app.Config.Team(), app.now())
}

func (o historyOpts) filter() (record.Filter, error) {
	// --search speaks the History page's language (state:, op:, model:,
	// tag:, from:, to:), so a query copied from the studio or an agent's
	// list_tasks finds the same tasks here; the flags add to it.
	f, err := record.ParseSearch(o.search)
	if err != nil {
		return f, fmt.Errorf("--search: %w", err)
	}
	f.Models = append(f.Models, o.models...)
	for _, s := range o.states {
		st, err := record.ParseState(s)
		if err != nil {
			return f, fmt.Errorf("--state %s: %w", api.CleanLine(s), err)
		}
		f.States = append(f.States, st)
	}
	for _, s := range o.operations {
		op, err := api.ParseOperation(s)
		if err != nil {
			return f, fmt.Errorf("--operation: %w", err)
		}
		f.Operations = append(f.Operations, op)
	}
	if o.since != "" {
		if f.From, err = parseWhen(o.since); err != nil {
			return f, fmt.Errorf("--since: %w", err)
		}
	}
	if o.until != "" {
		if f.To, err = parseWhen(o.until); err != nil {
			return f, fmt.Errorf("--until: %w", err)
		}
	}
	return f, nil
}

// parseWhen reads a day (local midnight) or an RFC 3339 time.
func parseWhen(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("want YYYY-MM-DD or an RFC 3339 time, got %q", s)
	}
	return t, nil
}

// displayState is how a row reads: a request still submitting is of
// unknown outcome once nobody sends it (studio.OutcomeUnknown, the rule
// every front end shares), else it is being sent.
func displayState(t record.Task, now time.Time) string {
	switch {
	case studio.OutcomeUnknown(t, now):
		return unknownState
	case t.State == record.StateSubmitting:
		return sendingState
	}
	return t.State
}

type historyLine struct {
	LocalID   int64    `json:"local_id"`
	TaskID    string   `json:"task_id"`
	Operation string   `json:"operation"`
	Model     string   `json:"model"`
	State     string   `json:"state"`
	ErrCode   string   `json:"err_code,omitempty"`
	Credits   int64    `json:"credits"`
	Progress  *int64   `json:"progress,omitempty"`
	OffPeak   bool     `json:"off_peak,omitempty"`
	CreatedAt string   `json:"created_at"`
	Prompt    string   `json:"prompt,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	Note      string   `json:"note,omitempty"`
	SentBy    string   `json:"sent_by,omitempty"`
	Account   string   `json:"account,omitempty"`
	Rejection *reject  `json:"rejection,omitempty"`
}

type reject struct {
	Status    int      `json:"status,omitempty"`
	Reason    string   `json:"reason"`
	Message   string   `json:"message"`
	TraceID   string   `json:"trace_id,omitempty"`
	Fields    []string `json:"fields,omitempty"`
	Retryable bool     `json:"retryable"`
}

func writeHistoryJSON(w io.Writer, tasks []record.Task, now time.Time) error {
	for _, t := range tasks {
		l := historyLine{LocalID: t.LocalID, TaskID: t.TaskID, Operation: string(t.Operation), Model: t.Model,
			State: displayState(t, now), ErrCode: t.ErrCode, Credits: t.Credits, Progress: t.Progress, OffPeak: t.OffPeak,
			CreatedAt: t.CreatedAt.UTC().Format(time.RFC3339Nano), Prompt: t.Prompt, Tags: t.Tags, Note: t.Note,
			SentBy: t.SentBy, Account: t.Account}
		if r := t.Rejection; r != nil && t.State == record.StateRejected {
			l.Rejection = &reject{r.Status, r.Reason, r.Message, r.TraceID, r.Fields, r.Retryable}
		}
		if err := writeJSON(w, l, false); err != nil {
			return err
		}
	}
	return nil
}

// writeHistoryTable lists tasks; a team's list (team) names who sent each
// (the user: by:NAME finds them, --json gives the machine too).
func writeHistoryTable(w io.Writer, tasks []record.Task, narrow, team bool, now time.Time) error {
	if len(tasks) == 0 {
		_, err := fmt.Fprintln(w, "No tasks match. Create one with: clapper create OPERATION ... (see clapper models)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if narrow {
		fmt.Fprintln(tw, "#\tTASK ID\tCREATED\tSTATE\tCREDITS")
	} else {
		by := ""
		if team {
			by = "BY\t"
		}
		fmt.Fprintln(tw, "#\tTASK ID\tCREATED\tOPERATION\tMODEL\tSTATE\tCREDITS\t"+by+"PROMPT")
	}
	unknown, example := 0, int64(0)
	for _, t := range tasks {
		id := t.TaskID
		if id == "" {
			id = "-"
		}
		state := displayState(t, now)
		if state == unknownState {
			unknown++
			example = t.LocalID
		}
		switch r := t.Rejection; {
		case t.NotSent():
			// Never reached the service: not a refusal.
			state = "not sent"
		case t.ErrCode != "":
			state += " " + t.ErrCode
		case r != nil && t.State == record.StateRejected:
			state += " " + r.Reason
			if r.TraceID != "" {
				state += " (trace " + r.TraceID + ")"
			}
		}
		prompt := oneLine(api.CleanText(t.Prompt))
		user, _, _ := strings.Cut(api.CleanLine(t.SentBy), "@")
		if user == "" {
			user = "-"
		}
		if len(t.Tags) > 0 {
			prompt = "[" + strings.Join(t.Tags, " ") + "] " + prompt
		}
		if narrow {
			// Two lines a task: what and how it went, then what was asked.
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\n", t.LocalID, api.CleanLine(id), t.CreatedAt.Local().Format("01-02 15:04"), api.CleanLine(state), t.Credits)
			what := fmt.Sprintf("%s %s  %s", t.Operation, orDash(t.Model), prompt)
			if team {
				what = "by " + user + "  " + what
			}
			fmt.Fprintf(tw, "\t%s\n", textutil.Clip(strings.TrimSuffix(what, " "), 66))
			continue
		}
		if team {
			prompt = user + "\t" + textutil.Clip(prompt, 40)
		} else {
			prompt = textutil.Clip(prompt, 40)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", t.LocalID, api.CleanLine(id), t.CreatedAt.Local().Format("2006-01-02 15:04"),
			t.Operation, orDash(t.Model), api.CleanLine(state), t.Credits, prompt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if unknown > 0 {
		// The commands name a real row: a bare "#" was typed as it stood.
		fmt.Fprintf(w, "\n%d request(s) of unknown outcome: their answer never came (clapper stopped, or the service did not\n"+
			"answer in time). Look the task up in the service's list, then attach its id with: clapper history resolve %d TASK_ID,\n"+
			"or drop it if it was not created: clapper history abandon %d (the number is the # column)\n", unknown, example, example)
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func newResolveCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "resolve # TASK_ID",
		Short: "Attach a task id, checked with the service, to a request",
		Long: "Reads TASK_ID from the service first: an id it does not know (404) is\n" +
			"refused and nothing is attached (exit 1), so a mistyped id never leaves\n" +
			"a task that clapper watch cannot follow.",
		Args: exactArgs(2, "the # of a request (from clapper history) and its TASK_ID"),
		RunE: app.onLocalTask(func(ctx context.Context, store record.Store, localID int64, args []string) error {
			taskID := strings.TrimSpace(args[1])
			if taskID == "" {
				return usageError("TASK_ID is empty; see clapper history resolve --help")
			}
			t, err := store.Task(ctx, localID)
			if err == nil && t.State != record.StateSubmitting {
				err = record.ErrConflict
			}
			if err != nil {
				return app.explainConflict(ctx, store, localID, err, "resolved", "requests of unknown outcome")
			}
			sv, err := app.open(ctx, studio.Options{SendOnly: true})
			if err != nil {
				return err
			}
			defer sv.Close()
			state, err := sv.StateAtService(ctx, t.Operation, taskID)
			if err != nil {
				if e, ok := api.AsError(err); ok && e.Status == 404 {
					return fmt.Errorf("the service does not know task %s (%s: %s); nothing attached, request #%d stays of unknown outcome",
						taskID, e.Reason, e.Message, localID)
				}
				return fmt.Errorf("could not confirm task %s with the service, so nothing was attached: %w", taskID, studio.DescribeAPIError(err))
			}
			if err := store.ResolveUnknown(ctx, localID, taskID); err != nil {
				return app.explainConflict(ctx, store, localID, err, "resolved", "requests of unknown outcome")
			}
			_, err = fmt.Fprintf(app.Out, "request %d is task %s (the service says %s); it is followed again from now on\n",
				localID, taskID, api.DescribeState(state))
			return err
		}),
	}
}

func newAbandonCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "abandon #",
		Short: "Give up on a refused or unknown request",
		Long:  "Gives up on a refused request or one of unknown outcome; it stays listed, as abandoned.",
		Args:  exactArgs(1, "the # of a request (from clapper history)"),
		RunE: app.onLocalTask(func(ctx context.Context, store record.Store, localID int64, _ []string) error {
			if t, err := store.Task(ctx, localID); err == nil && t.State == record.StateSubmitting && !studio.OutcomeUnknown(t, app.now()) {
				return fmt.Errorf("request %d is being sent by another clapper (%s), which waits for its answer; it cannot be abandoned now", localID, api.CleanText(t.Sender))
			}
			if err := store.Abandon(ctx, localID); err != nil {
				return app.explainConflict(ctx, store, localID, err, "abandoned", "refused requests and requests of unknown outcome")
			}
			_, err := fmt.Fprintf(app.Out, "request %d abandoned; it stays listed in clapper history\n", localID)
			return err
		}),
	}
}

// onLocalTask runs fn on the history for the task numbered by the first
// argument (the # column of clapper history).
func (app *App) onLocalTask(fn func(ctx context.Context, store record.Store, localID int64, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		localID, err := parseLocalID(args[0])
		if err != nil {
			return err
		}
		store, err := app.openStore(cmd.Context())
		if err != nil {
			return err
		}
		defer store.Close()
		return fn(cmd.Context(), store, localID, args)
	}
}

// parseLocalID reads the # column of clapper history: 7 or #7, as get
// and --from take it.
func parseLocalID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, &ExitError{Code: 2, Err: fmt.Errorf("#: want the number in the first column of clapper history, got %q", s)}
	}
	return id, nil
}

// explainConflict turns history's refusal to change a request in the wrong
// state into words that say what the request is and what can be done.
func (app *App) explainConflict(ctx context.Context, store record.Store, localID int64, err error, action, which string) error {
	switch {
	case errors.Is(err, record.ErrNotFound):
		return &ExitError{Code: 2, Err: fmt.Errorf("no request #%d in history (see clapper history)", localID)}
	case errors.Is(err, record.ErrConflict):
		state := "in another state"
		if t, terr := store.Task(ctx, localID); terr == nil {
			state = displayState(t, app.now())
			if t.TaskID != "" {
				state += " (task " + t.TaskID + ")"
			}
		}
		// Nothing was sent: asking for the wrong request is bad input.
		return &ExitError{Code: 2, Err: fmt.Errorf("request #%d is %s; only %s can be %s", localID, state, which, action)}
	}
	return err
}
