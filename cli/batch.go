package cli

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

type batchOpts struct {
	maxCredits  int64
	dryRun      bool
	json        bool
	noDownload  bool
	downloadDir string
	retryFailed bool
	caps        capFlags
}

func newBatchCmd(app *App) *cobra.Command {
	var o batchOpts
	cmd := &cobra.Command{
		Use:   "batch FILE",
		Short: "Send the requests of a JSON Lines or CSV file",
		Long: "Checks every line of FILE before sending any: a broken line is listed with its number and field, " +
			"and nothing is sent (exit 2). FILE is JSON Lines, {\"operation\": \"...\", \"request\": {...}} a line, " +
			"or CSV: a header row of field names with an operation column, each value typed as --set types it " +
			"(repeat a column for a list such as images; a list of objects is JSON in its cell). Local files are " +
			"read relative to FILE's folder.\n\n" +
			"At most five of the batch run at the service at once; the rest wait here. The batch and its lines are " +
			"kept in history, found again by the file's SHA-256: running the same file again (after Ctrl-C, a crash, " +
			"a kill) sends only the lines never sent and follows the rest. It ends with a summary of done, failed " +
			"and credits; exit 1 when a line failed. The results of every line that succeeds are saved as " +
			"clapper watch saves them (--no-download leaves them at the service).\n\n" +
			"--max-credits refuses the batch (exit 2, nothing sent) when its price passes the number; the daily " +
			"and monthly credit caps refuse it likewise unless --over-cap.",
		Example: "  clapper batch products.csv --max-credits 2000\n" +
			"  clapper batch requests.jsonl --dry-run\n\n" +
			"  requests.jsonl:\n" +
			"    {\"operation\": \"reference2image\", \"request\": {\"model\": \"svcq2\", ...}}\n" +
			"  products.csv:\n" +
			"    operation,model,prompt,duration\n" +
			"    text2video,svcq3-turbo,a red mug turning,5",
		Args: exactArgs(1, "a batch FILE (JSON Lines or CSV)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.caps.apply(cmd, &app.Config); err != nil {
				return err
			}
			return app.batch(cmd.Context(), args[0], o)
		},
	}
	f := cmd.Flags()
	f.Int64Var(&o.maxCredits, "max-credits", 0, "Refuse the batch when its price passes this\nmany credits (0: no bound)")
	f.BoolVar(&o.dryRun, "dry-run", false, "Check the file and print its price; send\nnothing")
	f.BoolVar(&o.json, "json", false, "Print the summary as JSON (no progress bar)")
	f.BoolVar(&o.noDownload, "no-download", false, "Do not download the results")
	f.StringVar(&o.downloadDir, "download-dir", "", "Save results here (default\n"+downloadDirHint+")")
	f.BoolVar(&o.retryFailed, "retry-failed", false, "Send the lines whose task failed again, once\n(priced and held to the caps with the rest)")
	o.caps.add(cmd)
	return cmd
}

func (app *App) batch(ctx context.Context, file string, o batchOpts) error {
	if o.maxCredits < 0 {
		return usageError("--max-credits %d: give a whole number of credits, 0 for no bound", o.maxCredits)
	}
	data, err := api.ReadRegularFile(file, maxBatchFile)
	if err != nil {
		return &ExitError{Code: 2, Err: fmt.Errorf("read batch: %w", err)}
	}
	b := parseBatch(file, data, app.Config)
	if len(b.problems) > 0 {
		return batchRefused(file, b.problems)
	}
	s, err := app.open(ctx, studio.Options{DownloadDir: o.downloadDir, NoDownload: o.noDownload})
	if err != nil {
		return err
	}
	defer s.Close()
	setID, created, err := s.Record().OpenSet(ctx, record.SetBatch, b.sha, filepath.Base(file), studio.SetMembers(b.requests))
	if err != nil {
		return err
	}
	// A batch that sends nothing this time (checked, or refused) leaves no
	// set behind it, unless an earlier run made the set.
	sent := false
	defer func() {
		if created && !sent {
			s.Record().DropSet(context.WithoutCancel(ctx), setID)
		}
	}()
	// A file edited since an earlier run: its lines that ran then, unchanged
	// (wherever they stand now), are this run's too, not sent again.
	ran, err := s.Record().RanBefore(ctx, setID)
	if err != nil {
		return err
	}
	if len(ran) > 0 && !o.json {
		fmt.Fprintf(app.Err, "clapper: %s: %s ran before, unchanged (%s): not sent again\n", api.CleanText(file),
			textutil.Plural(len(ran), "line"), ranLines(ran))
	}
	unsent, err := s.Unsent(ctx, setID, b.requests)
	if err != nil {
		return err
	}
	var retry []studio.SetRequest
	if o.retryFailed {
		if retry, err = failedLines(ctx, s, setID, b.requests); err != nil {
			return err
		}
		unsent = append(unsent, retry...)
		if !o.json {
			again := "sent again (once)"
			if o.dryRun {
				again = "would be sent again (once)"
			}
			fmt.Fprintf(app.Err, "clapper: %s: %s failed: %s\n", api.CleanText(file), textutil.Plural(len(retry), "line"), again)
		}
	}
	whole := s.SetPrice(b.requests)
	if !o.json {
		fmt.Fprintf(app.Err, "clapper: %s: %s, %s\n", api.CleanText(file), textutil.Plural(len(b.requests), "request"), whole.Text)
	}
	if o.maxCredits > 0 && whole.Credits > o.maxCredits {
		return usageError("batch not sent: its price, %s, passes --max-credits %d", whole.Text, o.maxCredits)
	}
	if o.dryRun {
		return nil
	}
	if !o.caps.over {
		if err := s.CheckSpendCaps(ctx, s.SetPrice(unsent), "this batch"); err != nil {
			return capRefused(err)
		}
	} else {
		ctx = studio.OverCap(ctx)
	}
	if len(retry) > 0 {
		if _, err := s.Record().RetryFailedLines(ctx, setID); err != nil {
			return err
		}
	}
	sent = true
	_, sum, err := app.runSet(ctx, s, setID, "batch", b.requests, o.json, false)
	if err == nil && !o.noDownload {
		err = app.saveSet(ctx, s, sum, createOpts{json: o.json, downloadDir: o.downloadDir})
	}
	if err == nil && sum.Failed > 0 {
		err = fmt.Errorf("%s of the batch failed", textutil.Plural(sum.Failed, "line"))
	}
	return err
}

// failedLines are the requests of a set's lines whose task failed and was
// not sent again before: what --retry-failed sends again.
func failedLines(ctx context.Context, s *studio.Studio, setID int64, reqs []studio.SetRequest) ([]studio.SetRequest, error) {
	members, err := s.Record().SetMembers(ctx, setID)
	if err != nil {
		return nil, err
	}
	failed := map[int]bool{}
	for _, m := range members {
		if m.LocalID == 0 || m.Retried {
			continue
		}
		t, err := s.Record().Task(ctx, m.LocalID)
		if err != nil {
			return nil, err
		}
		failed[m.Line] = t.State == api.StateFailed
	}
	var out []studio.SetRequest
	for _, r := range reqs {
		if failed[r.Line] {
			out = append(out, r)
		}
	}
	return out, nil
}

// ranLines names the lines that ran before and their tasks: line 4 as #12.
func ranLines(ran map[int]int64) string {
	lines := slices.Sorted(maps.Keys(ran))
	parts := make([]string, 0, min(len(lines), 6))
	for i, l := range lines {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(lines)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("line %d as #%d", l, ran[l]))
	}
	return strings.Join(parts, ", ")
}

// saveSet saves the results of every line of a set that succeeded, by the
// one download policy, and says what it saved; a line saved before (a
// batch run again) is not fetched twice.
func (app *App) saveSet(ctx context.Context, s *studio.Studio, sum *studio.SetSummary, o createOpts) error {
	var unsaved int
	for _, l := range sum.Lines {
		if l.State != api.StateSuccess || l.TaskID == "" {
			continue
		}
		err := s.SaveResults(ctx, l.TaskID, nil)
		if err == nil {
			err = app.settle(ctx, s, l.TaskID, o)
		}
		if err != nil {
			if ctx.Err() != nil {
				return downloadStopped(ctx, l.TaskID, err)
			}
			unsaved++
			fmt.Fprintf(app.Err, "  line %d: %s\n", l.Line, api.CleanText(err.Error()))
		}
	}
	if unsaved > 0 {
		return fmt.Errorf("results of %s could not be saved", textutil.Plural(unsaved, "line"))
	}
	return nil
}

// capFlags are the spending caps a sending command takes.
type capFlags struct {
	daily, monthly string
	over           bool
}

func (c *capFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.daily, "daily-cap", "", "Credits all tasks may cost per day; 0 or off\nfor no cap (env "+studio.EnvDailyCreditCap+")")
	f.StringVar(&c.monthly, "monthly-cap", "", "Credits all tasks may cost per month; 0 or off\nfor no cap (env "+studio.EnvMonthlyCreditCap+")")
	f.BoolVar(&c.over, "over-cap", false, "Send even when it passes a daily or monthly\ncredit cap")
}

// apply puts the caps given as flags over the environment and settings.
func (c *capFlags) apply(cmd *cobra.Command, cfg *studio.Config) error {
	for _, fl := range []struct {
		name  string
		value string
		into  *int64
	}{{"daily-cap", c.daily, &cfg.DailyCreditCap}, {"monthly-cap", c.monthly, &cfg.MonthlyCreditCap}} {
		if !cmd.Flags().Changed(fl.name) {
			continue
		}
		n, err := studio.ParseCreditCap(fl.value)
		if err != nil {
			return usageError("--%s %q: %v", fl.name, fl.value, err)
		}
		*fl.into = n
	}
	return nil
}

// capRefused is a send refused by a credit cap: nothing was sent, exit 2.
func capRefused(err error) error {
	return &ExitError{Code: 2, Err: fmt.Errorf("%w; --over-cap sends anyway", err)}
}
