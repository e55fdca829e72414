package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

type createOpts struct {
	file        string
	sets        []string
	dryRun      bool
	force       bool
	wait        bool
	json        bool
	noDownload  bool
	downloadDir string
	variations  int
	vary        string
	from        []string
	caps        capFlags
}

func newCreateCmd(app *App) *cobra.Command {
	var o createOpts
	cmd := &cobra.Command{
		Use:   "create OPERATION",
		Short: "Check a creation request and submit it",
		Long: "Builds the request from a JSON file (-f) and --set assignments, checks it against every rule " +
			"of the operation and model, and submits it (--dry-run prints it instead). Nothing is sent when " +
			"a rule is broken: every broken rule is listed and the exit status is 2 (--force lists them and " +
			"sends anyway; the service decides). --set field= unsets a field. A local file given for " +
			"an image, video or audio field is sent as a data URI.\n\n" +
			"OPERATION is one of: " + strings.Join(operationNames(), ", ") + ".",
		Example: "  clapper create text2video --set model=svcq3-turbo \\\n" +
			"    --set prompt='a red fox in snow' --set duration=8\n" +
			"  clapper create img2video --set model=svcq1 \\\n" +
			"    --set images=./first-frame.png --wait\n" +
			"  clapper create reference2video -f request.json --dry-run \\\n" +
			"    --set 'subjects:=[{\"name\":\"cat\",\"images\":[\"cat.png\"]}]'\n" +
			"  clapper create timing2audio --set model=audio1.0 \\\n" +
			"    --set 'timing_prompts:=[{\"from\":0,\"to\":2,\"prompt\":\"door slam\"}]'\n" +
			"  clapper create start-end2video --from 812345678901234567:images[1] \\\n" +
			"    --set images=./first.png\n" +
			"  clapper create extend --set model=svcq2-pro --from 812345678901234567 \\\n" +
			"    --set duration=7 --set prompt='the camera pulls back'\n" +
			"  clapper create multiframe --set model=svcq2-turbo \\\n" +
			"    --set start_image=a.png \\\n" +
			"    --set 'image_settings:=[{\"key_image\":\"b.png\"},{\"key_image\":\"c.png\"}]'",
		Args:      exactArgs(1, "an OPERATION ("+strings.Join(operationNames(), ", ")+")"),
		ValidArgs: operationNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			op, err := api.ParseOperation(args[0])
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if err := o.caps.apply(cmd, &app.Config); err != nil {
				return err
			}
			return app.create(cmd.Context(), op, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.file, "file", "f", "", "Request JSON file (- for standard input)")
	f.StringArrayVar(&o.sets, "set", nil, "Set field=value (repeat to add list items) or\nfield:=JSON")
	f.BoolVar(&o.dryRun, "dry-run", false, "Validate and print the request; send nothing")
	f.BoolVar(&o.force, "force", false, "Send even if rules are broken (listed first);\nthe service decides")
	f.BoolVar(&o.wait, "wait", false, "Wait until the task succeeds or fails, then\nprint the result")
	f.BoolVar(&o.json, "json", false, "Print the service's JSON answer")
	f.BoolVar(&o.noDownload, "no-download", false, "With --wait: do not download the results")
	f.StringVar(&o.downloadDir, "download-dir", "", "With --wait: save results here (default\n"+downloadDirHint+")")
	f.IntVar(&o.variations, "variations", 0, "Send N versions with different seeds, at most\nfive at the service at once")
	f.StringVar(&o.vary, "vary", "", "Send one version per value: field=a|b|c\n(or a,b,c when no value holds a comma)")
	f.StringArrayVar(&o.from, "from", nil, "Fill a field with a task's result: TASK_ID (or #N\nof clapper history), then :field where several\ntake it (images[1]); the task sent remembers it;\nagain for another field (a video and a speech)")
	o.caps.add(cmd)
	return cmd
}

func (app *App) create(ctx context.Context, op api.Operation, o createOpts) error {
	body, err := buildRequest(ctx, op, o.file, app.In, o.sets, o.force)
	if err != nil {
		if ExitCode(err) == 2 {
			return err
		}
		return &ExitError{Code: 2, Err: err}
	}
	var parents []record.Parent
	if len(o.from) > 0 && (o.variations != 0 || o.vary != "") {
		return &ExitError{Code: 2, Err: errors.New("--from: not with --variations or --vary; send the versions from the TUI's review, or one --from request at a time")}
	}
	for _, ref := range o.from {
		parent, err := app.fromTask(ctx, op, body, ref)
		if err != nil {
			return err
		}
		if i := slices.IndexFunc(parents, func(p record.Parent) bool { return p.Field == parent.Field }); i >= 0 {
			return &ExitError{Code: 2, Err: fmt.Errorf("--from %s: %s is filled by --from already (one task's result per field)", api.CleanText(ref), parent.Field)}
		}
		parents = append(parents, *parent)
	}
	p, err := studio.PrepareRequest(app.Config, op, body, ".")
	if err != nil {
		return &ExitError{Code: 2, Err: fmt.Errorf("request not sent: %w", err)}
	}
	body, errs := p.Body, p.Errors
	if errs != nil && !o.force {
		return &ExitError{Code: 2, Err: validationError{op: op, errs: errs}}
	}
	if p.TooLarge != "" {
		if !o.force {
			return &ExitError{Code: 2, Err: errors.New(p.TooLarge)}
		}
		errs = append(errs, catalog.FieldError{Message: p.TooLarge})
	}
	if errs != nil {
		// Forced: the rules are told, the service's answer is final.
		fmt.Fprintf(app.Err, "clapper: warning: %s\n", validationError{op: op, errs: errs, forced: true})
	}
	if o.variations != 0 || o.vary != "" {
		versions, err := variations(app.Config, op, body, o.variations, o.vary)
		if err != nil {
			return err
		}
		return app.createSet(ctx, op, versions, o)
	}
	if o.dryRun {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		return writeDryRun(app.Out, raw)
	}
	s, err := app.open(ctx, studio.Options{SendOnly: !o.wait, DownloadDir: o.downloadDir, NoDownload: o.noDownload})
	if err != nil {
		return err
	}
	defer s.Close()
	if !o.caps.over {
		if err := s.CheckSpendCaps(ctx, s.Price(op, body), ""); err != nil {
			return capRefused(err)
		}
	} else {
		ctx = studio.OverCap(ctx)
	}
	sub, err := s.SendFrom(ctx, op, body, parents)
	if err != nil {
		return submitError(err)
	}
	if sub.Warning != nil {
		fmt.Fprintf(app.Err, "clapper: warning: %v\n", sub.Warning)
	}
	if !o.wait {
		write := func() error { return writeCreated(app.Out, op, sub.Task, sub.LocalID) }
		if o.json {
			write = func() error { return writeRaw(app.Out, sub.Task.Raw) }
		}
		if err := write(); err != nil {
			return err
		}
		// A synchronous operation (a clone, a speech) may answer failed at
		// once: that is a failed task, exit 1, as with --wait.
		if sub.Task.State == api.StateFailed {
			return fmt.Errorf("task %s failed", api.CleanText(sub.Task.Identifier()))
		}
		return nil
	}
	model, _ := body["model"].(string)
	return app.wait(ctx, s, op, model, sub.Task, o)
}

// submitError explains a failed submission and what history kept of it.
func submitError(err error) error {
	var capped *studio.CapError
	if errors.As(err, &capped) {
		// Spent elsewhere (another terminal, another machine) since the
		// check: the history refused it as it was recorded.
		return capRefused(err)
	}
	var unknown *studio.UnknownSubjectError
	if errors.As(err, &unknown) {
		return &ExitError{Code: 2, Err: fmt.Errorf("request not sent: %w", err)}
	}
	var se *studio.SubmitError
	n := "#"
	if errors.As(err, &se) {
		n = fmt.Sprint(se.LocalID)
	}
	switch {
	case errors.Is(err, studio.ErrOutcomeUnknown):
		return fmt.Errorf("%w\n  The request is kept in clapper history as #%s, outcome unknown: check whether the task exists, then\n"+
			"  attach it with: clapper history resolve %s TASK_ID, or give up with: clapper history abandon %s", err, n, n, n)
	case studio.IsRetryable(err):
		return fmt.Errorf("%w\n  The request is kept in history; send it again with: clapper resubmit %s", studio.DescribeAPIError(err), n)
	}
	return studio.DescribeAPIError(err)
}

// validationError lists every broken rule, one per line.
type validationError struct {
	op     api.Operation
	errs   catalog.Errors
	forced bool // --force: sent regardless
}

func (v validationError) Error() string {
	var b strings.Builder
	if v.forced {
		fmt.Fprintf(&b, "--force: this %s request breaks %s; the service decides", v.op, textutil.Plural(len(v.errs), "rule"))
	} else {
		fmt.Fprintf(&b, "%s request not sent: %s", v.op, textutil.Plural(len(v.errs), "problem"))
	}
	for _, e := range v.errs {
		b.WriteString("\n  ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// writeDryRun prints the request exactly as it would be sent; on a terminal
// long data URIs are shortened so the rules stay readable.
func writeDryRun(w io.Writer, raw []byte) error {
	var pretty any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&pretty); err != nil {
		return err
	}
	shortened := false
	if isTerminal(w) {
		pretty, shortened = shortenDataURIs(pretty)
	}
	if err := writeJSON(w, pretty, true); err != nil {
		return err
	}
	if shortened {
		fmt.Fprintln(w, "(data URIs shortened for the terminal; redirect the output to get them whole)")
	}
	return nil
}

func shortenDataURIs(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		if catalog.IsDataURI(x) && len(x) > 80 {
			head, _, _ := strings.Cut(x, ",")
			return fmt.Sprintf("%s,…(%d bytes)", head, len(x)), true
		}
	case []any:
		any := false
		for i := range x {
			var s bool
			x[i], s = shortenDataURIs(x[i])
			any = any || s
		}
		return x, any
	case map[string]any:
		any := false
		for k := range x {
			var s bool
			x[k], s = shortenDataURIs(x[k])
			any = any || s
		}
		return x, any
	}
	return v, false
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// writeRaw prints a JSON text, the service's answer as received included,
// with every control character escaped (api.EscapeJSON): what --json
// prints is byte-safe for a terminal. Every JSON output goes through it.
func writeRaw(w io.Writer, raw []byte) error {
	safe, err := api.EscapeJSON(bytes.TrimRight(raw, "\n"))
	if err != nil {
		return fmt.Errorf("the service's answer is not JSON: %s", textutil.Clip(api.CleanText(string(raw)), 120))
	}
	_, err = w.Write(append(safe, '\n'))
	return err
}

// writeJSON prints v as JSON through writeRaw; indent spreads it over lines.
func writeJSON(w io.Writer, v any, indent bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeRaw(w, b.Bytes())
}

// writeCreated says what the service answered a creation, with the row of
// clapper history (#N) when there is one (localID 0: none).
func writeCreated(w io.Writer, op api.Operation, t *api.Task, localID int64) error {
	state := t.State
	if state == "" {
		state = api.StateCreated
	}
	label := "task"
	if op != "" {
		label = string(op) + " task"
	}
	line := fmt.Sprintf("%s %s: %s", label, api.CleanText(t.Identifier()), api.CleanText(state))
	if localID > 0 {
		line = fmt.Sprintf("%s %s (#%d): %s", label, api.CleanText(t.Identifier()), localID, api.CleanText(state))
	}
	if t.Credits > 0 {
		line += ", " + textutil.Plural(int(t.Credits), "credit")
	}
	if t.FileURL != "" {
		line += "\n  audio: " + api.CleanText(t.FileURL)
	}
	if t.VoiceID != "" {
		line += "\n  voice: " + api.CleanText(t.VoiceID)
	}
	if t.DemoAudio != "" {
		line += "\n  preview: " + api.CleanText(t.DemoAudio)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
