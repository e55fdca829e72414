package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

func newGetCmd(app *App) *cobra.Command {
	var asJSON, lineage bool
	cmd := &cobra.Command{
		Use:   "get TASK_ID",
		Short: "Show a task's state and results",
		Long: "Shows a task's state, its error with what it means, and its result URLs; a multi-scene job " +
			"shows each scene; a task sent onward from another (create --from, s in the studio) names it, " +
			"and a task whose result went on names those tasks. With --json, the service's answer as " +
			"received, with the chain as sent_onward_from and sent_onward_to.",
		Example: "  clapper get 812345678901234567\n  clapper get '#7'\n" +
			"  clapper get 812345678901234567 --json |\n    jq -r '.creations[].url'",
		Args: exactArgs(1, "a TASK_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if lineage {
				return app.lineage(cmd.Context(), args[0], asJSON)
			}
			s, err := app.open(cmd.Context(), studio.Options{SendOnly: true})
			if err != nil {
				return err
			}
			defer s.Close()
			// #N is a row of clapper history, as --from takes it.
			var local int64
			_, serr := fmt.Sscanf(args[0], "#%d", &local)
			switch {
			case serr != nil && strings.HasPrefix(args[0], "#"):
				return &ExitError{Code: 2, Err: fmt.Errorf("%s: want #N, N the number in the first column of clapper history, or a task id", api.CleanText(args[0]))}
			case serr != nil:
				// A malformed id is bad input, refused before anything is sent.
				if err := api.CheckID(args[0]); err != nil {
					return &ExitError{Code: 2, Err: err}
				}
			}
			if serr == nil {
				t, err := s.Record().Task(cmd.Context(), local)
				switch {
				case errors.Is(err, record.ErrNotFound):
					return &ExitError{Code: 2, Err: fmt.Errorf("no task %s in this history (clapper history lists them)", api.CleanText(args[0]))}
				case err != nil:
					return err
				case t.TaskID == "":
					return &ExitError{Code: 2, Err: fmt.Errorf("%s was never taken by the service (%s): it has no task id to read", api.CleanText(args[0]), t.State)}
				}
				args[0] = t.TaskID
			}
			raw, err := s.Fetch(cmd.Context(), args[0])
			if err != nil {
				return studio.DescribeAPIError(err)
			}
			// The chain is history's: the service knows nothing of it.
			var from, onward []studio.ChainLink
			if t, err := s.Record().TaskByID(cmd.Context(), args[0]); err == nil {
				from, onward = studio.Chain(t)
			}
			if asJSON {
				return writeRaw(app.Out, withChain(raw, from, onward))
			}
			if err := writeResult(app.Out, "", args[0], raw); err != nil {
				return err
			}
			if err := writeChain(app.Out, from, onward); err != nil {
				return err
			}
			if app.Config.APIKey == "" && strings.Contains(string(raw), "/_sandbox/files/") {
				fmt.Fprintln(app.Err, sandboxURLHint)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print the service's JSON answer as received (with\nsent_onward_from and sent_onward_to from history)")
	cmd.Flags().BoolVar(&lineage, "lineage", false, "Show the task's whole chain from history: every\ntask it came from and every task made from it\n(TASK_ID or #N; with --json, one object a task)")
	return cmd
}

// lineageNode is a task of a lineage as get --lineage --json prints it.
type lineageNode struct {
	LocalID   int64              `json:"local_id"`
	TaskID    string             `json:"task_id,omitempty"`
	Operation string             `json:"operation"`
	State     string             `json:"state"`
	Prompt    string             `json:"prompt,omitempty"`
	Depth     int                `json:"depth"`
	From      []studio.ChainLink `json:"sent_onward_from,omitempty"`
}

// lineage prints a task's whole chain from history: the tasks above it
// (its sources, theirs...), the task (marked ▶), the tasks made from it,
// indented by depth, each with the sources it was made from.
func (app *App) lineage(ctx context.Context, ref string, asJSON bool) error {
	store, err := app.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	var t record.Task
	var local int64
	if _, serr := fmt.Sscanf(ref, "#%d", &local); serr == nil {
		t, err = store.Task(ctx, local)
	} else {
		t, err = store.TaskByID(ctx, ref)
	}
	if errors.Is(err, record.ErrNotFound) {
		return &ExitError{Code: 2, Err: fmt.Errorf("no task %s in this history (clapper history lists them; #N is a row's number)", api.CleanText(ref))}
	}
	if err != nil {
		return err
	}
	nodes, err := store.Lineage(ctx, t.LocalID)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(app.Out)
		for _, n := range nodes {
			out := lineageNode{LocalID: n.LocalID, TaskID: api.CleanText(n.TaskID), Operation: string(n.Operation), State: n.State,
				Prompt: api.CleanText(n.Prompt), Depth: n.Depth}
			for _, l := range n.From {
				out.From = append(out.From, studio.ChainLink{LocalID: l.LocalID, TaskID: api.CleanText(l.TaskID), Operation: string(l.Operation),
					State: l.State, Field: api.CleanText(l.Field), Place: studio.PlaceOf(l, n.Operation, l.Operation)})
			}
			if err := enc.Encode(out); err != nil {
				return err
			}
		}
		return nil
	}
	top := 0
	for _, n := range nodes {
		top = min(top, n.Depth)
	}
	var b strings.Builder
	for _, n := range nodes {
		mark := "  "
		if n.LocalID == t.LocalID {
			mark = "▶ "
		}
		indent := strings.Repeat("   ", n.Depth-top)
		id := ""
		if n.TaskID != "" {
			id = " " + api.CleanText(n.TaskID)
		}
		fmt.Fprintf(&b, "%s%s#%d %s %s%s", mark, indent, n.LocalID, n.Operation, n.State, id)
		if n.Prompt != "" {
			fmt.Fprintf(&b, "  %q", textutil.Clip(api.CleanLine(n.Prompt), 50))
		}
		b.WriteString("\n")
		for _, l := range n.From {
			fmt.Fprintf(&b, "  %s   ← %s of #%d (%s %s)\n", indent, chainPlace(studio.ChainLink{Field: api.CleanText(l.Field),
				Place: studio.PlaceOf(l, n.Operation, l.Operation)}), l.LocalID, l.Operation, l.State)
		}
	}
	_, err = io.WriteString(app.Out, b.String())
	return err
}

// writeResult renders whichever shape the body has: a task result, a
// creation echo or a multi-scene job record.
func writeResult(w io.Writer, op api.Operation, id string, raw []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fmt.Errorf("the service answered something that is not a JSON object: %s", textutil.Clip(string(raw), 120))
	}
	if _, ok := probe["job_records"]; ok {
		var job api.OneClickJob
		if err := json.Unmarshal(raw, &job); err != nil {
			return fmt.Errorf("decode job record: %w", err)
		}
		return writeJob(w, &job)
	}
	if _, ok := probe["task_id"]; ok {
		var t api.Task
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("decode task: %w", err)
		}
		return writeCreated(w, op, &t, 0)
	}
	var r api.TaskResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("decode task result: %w", err)
	}
	if r.ID == "" {
		r.ID = id
	}
	return writeTaskResult(w, &r)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeTaskResult(w io.Writer, r *api.TaskResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "task %s: %s", api.CleanText(r.ID), api.CleanText(r.State))
	if r.Progress != nil && !api.IsTerminal(r.State) {
		fmt.Fprintf(&b, " (%d%%)", *r.Progress)
	}
	b.WriteString(", " + textutil.Plural(int(r.Credits), "credit"))
	if r.OffPeak != nil && *r.OffPeak {
		b.WriteString(", off-peak")
	}
	if r.ErrCode != "" {
		fmt.Fprintf(&b, "\n  error: %s: %s", api.CleanText(r.ErrCode), api.Explain(r.ErrCode, 0))
	}
	for i, c := range r.Creations {
		fmt.Fprintf(&b, "\n  %d. %s", i+1, api.CleanText(c.URL))
		if c.CoverURL != "" {
			fmt.Fprintf(&b, "\n     cover: %s", api.CleanText(c.CoverURL))
		}
		if c.WatermarkedURL != "" {
			fmt.Fprintf(&b, "\n     watermarked: %s", api.CleanText(c.WatermarkedURL))
		}
	}
	if r.State == api.StateSuccess && len(r.Creations) > 0 {
		b.WriteString("\n  Result URLs are valid 24 hours (1 hour for trending-replicate).")
	}
	_, err := fmt.Fprintln(w, b.String())
	return err
}

func writeJob(w io.Writer, j *api.OneClickJob) error {
	var b strings.Builder
	fmt.Fprintf(&b, "job %s: %s", api.CleanText(j.ID), api.CleanText(j.State))
	if j.ErrCode != "" {
		fmt.Fprintf(&b, "\n  error: %s %s", api.CleanText(j.ErrCode), api.CleanText(j.ErrMsg))
	}
	for _, rec := range j.JobRecords {
		if len(rec.Jobs) == 0 {
			continue
		}
		cur := rec.Jobs[len(rec.Jobs)-1]
		label := fmt.Sprintf("scene %d", rec.Index+1)
		if rec.Type == api.RecordCompose {
			label = "composed"
		}
		fmt.Fprintf(&b, "\n  %s: %s (job %s", label, api.CleanText(cur.State), api.CleanText(cur.ID))
		if n := len(rec.Jobs); n > 1 {
			fmt.Fprintf(&b, ", version %d of %d", n, n)
		}
		b.WriteString(")")
		if in := cur.MVGenerateVideoInput; in != nil && in.Prompt != "" {
			fmt.Fprintf(&b, "\n    prompt: %s", textutil.Clip(api.CleanText(in.Prompt), 100))
		}
	}
	if j.SignedURL != "" {
		fmt.Fprintf(&b, "\n  video: %s\n  (signed URL valid under 3 minutes; run get again for a fresh one)", api.CleanText(j.SignedURL))
	}
	_, err := fmt.Fprintln(w, b.String())
	return err
}

// withChain adds a task's chain to the service's answer: the answer's own
// keys stay as received.
func withChain(raw []byte, from, onward []studio.ChainLink) []byte {
	if len(from) == 0 && len(onward) == 0 {
		return raw
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	if len(from) > 0 {
		obj["sent_onward_from"], _ = json.Marshal(from)
	}
	if len(onward) > 0 {
		obj["sent_onward_to"], _ = json.Marshal(onward)
	}
	// The answer's URLs keep their & as received, not \u0026.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(obj) != nil {
		return raw
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// writeChain says where a task came from and where its result went.
func writeChain(w io.Writer, from, onward []studio.ChainLink) error {
	var b strings.Builder
	for _, l := range from {
		fmt.Fprintf(&b, "  from: %s, its result in %s\n", chainTask(l), chainPlace(l))
	}
	for _, l := range onward {
		fmt.Fprintf(&b, "  sent onward to: %s, in its %s\n", chainTask(l), chainPlace(l))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// chainTask is "text2video task 5028… (#2, success)".
func chainTask(l studio.ChainLink) string {
	if l.TaskID == "" {
		return fmt.Sprintf("%s #%d (%s)", l.Operation, l.LocalID, l.State)
	}
	return fmt.Sprintf("%s task %s (#%d, %s)", l.Operation, l.TaskID, l.LocalID, l.State)
}

// chainPlace is "video_url (source video)".
func chainPlace(l studio.ChainLink) string {
	if l.Place == "" || l.Place == l.Field {
		return l.Field
	}
	return l.Field + " (" + l.Place + ")"
}
