package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

type taskIn struct {
	TaskID string `json:"task_id" jsonschema:"the task id create_<operation> answered"`
}

type waitIn struct {
	TaskID         string  `json:"task_id" jsonschema:"the task id create_<operation> answered"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"how long to wait, 1 to 600 seconds (default 50); when it passes the task is answered as it stands, still running"`
}

type listIn struct {
	Query string `json:"query,omitempty" jsonschema:"the History page's search: words state:failed op:text2video model:svcq1 from:2026-11-01 to:2026-11-30"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many tasks, newest first (default 20, at most 200)"`
}

// taskOut is a task as the tools answer it.
type taskOut struct {
	TaskID    string      `json:"task_id,omitempty"`
	LocalID   int64       `json:"local_id"`
	Operation string      `json:"operation"`
	Model     string      `json:"model,omitempty"`
	State     string      `json:"state"`
	Progress  *int64      `json:"progress_percent,omitempty"`
	ErrCode   string      `json:"err_code,omitempty"`
	Credits   int64       `json:"credits,omitempty"`
	Origin    string      `json:"origin,omitempty"`
	Prompt    string      `json:"prompt,omitempty"`
	Tags      []string    `json:"tags,omitempty"`
	Note      string      `json:"note,omitempty"`
	CreatedAt string      `json:"created_at"`
	Results   []resultOut `json:"results,omitempty"`
	Files     []fileOut   `json:"files,omitempty"`
	Follow    string      `json:"follow,omitempty"`
	// From is the task this one was sent onward from (its result filled
	// Field), Onward the tasks sent onward from this one.
	From   *studio.ChainLink  `json:"sent_onward_from,omitempty"`
	Onward []studio.ChainLink `json:"sent_onward_to,omitempty"`
	// Waited says how wait_task ended: "finished", "timeout", or "lost" (the
	// service does not know the task; history keeps it as it was).
	Waited string `json:"waited,omitempty"`
}

type resultOut struct {
	Index     int    `json:"index"`
	URL       string `json:"url,omitempty"`
	CoverURL  string `json:"cover_url,omitempty"`
	ExpiresAt string `json:"urls_expire_at,omitempty"`
}

type fileOut struct {
	Index    int    `json:"index"`
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Status   string `json:"status"`
	Bytes    int64  `json:"bytes,omitempty"`
	Error    string `json:"error,omitempty"`
	Resource string `json:"resource,omitempty"`
}

type taskList struct {
	Tasks []taskOut `json:"tasks"`
	More  bool      `json:"more"`
}

func (s *Server) addTaskTools() {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	addTool(s.sdk, &sdk.Tool{Name: "get_task", Title: "Read a task", Annotations: ro,
		Description: "A task as the user's clapper history holds it (kept up to date while clapper mcp runs): state, progress, result URLs, saved files, and the task it was sent onward from (sent_onward_from: whose result filled which field) and those sent onward from it (sent_onward_to)."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in taskIn) (*sdk.CallToolResult, taskOut, error) {
			t, err := s.task(ctx, in.TaskID)
			if err != nil {
				return nil, taskOut{}, err
			}
			return nil, s.taskOut(ctx, t, true), nil
		})
	addTool(s.sdk, &sdk.Tool{Name: "wait_task", Title: "Wait for a task", Annotations: ro,
		Description: "Waits until a task succeeds or fails, at most timeout_seconds (default 50, at most 600), sending progress notifications as its state changes. On timeout it answers the task as it stands; call again to keep waiting."},
		s.waitTask)
	addTool(s.sdk, &sdk.Tool{Name: "list_tasks", Title: "Search the history", Annotations: ro,
		Description: "Tasks in the user's clapper history, newest first, searched as on the History page: " + record.SearchSyntax + "."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in listIn) (*sdk.CallToolResult, taskList, error) {
			f, err := record.ParseSearch(in.Query)
			if err != nil {
				return nil, taskList{}, fmt.Errorf("query: %w", err)
			}
			switch {
			case in.Limit < 0 || in.Limit > 200:
				return nil, taskList{}, fmt.Errorf("limit: give 1 to 200 tasks, got %d", in.Limit)
			case in.Limit == 0:
				in.Limit = 20
			}
			f.Limit = in.Limit
			page, err := s.studio.Record().Tasks(ctx, f)
			if err != nil {
				return nil, taskList{}, err
			}
			out := taskList{Tasks: []taskOut{}, More: !page.Next.IsZero()}
			for _, t := range page.Tasks {
				out.Tasks = append(out.Tasks, s.taskOut(ctx, t, false))
			}
			return nil, out, nil
		})
	addTool(s.sdk, &sdk.Tool{Name: "download_results", Title: "Save a task's results",
		Description: "Saves a finished task's results (and video covers) through clapper's downloader into the user's download folders, and answers the local paths. Images and covers can then be read as resources.",
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: new(true)}},
		s.downloadResults)
	addTool(s.sdk, &sdk.Tool{Name: "list_voices", Title: "Cloned voices", Annotations: ro,
		Description: "The voices cloned with audio-clone and how long each has left: the service deletes a cloned voice 168 hours after cloning unless speech synthesis (audio-tts) used it by then; a voice used in time is kept for good."},
		s.listVoices)
}

// task reads a task by its service id (or #local id) from history.
func (s *Server) task(ctx context.Context, id string) (record.Task, error) {
	if id == "" {
		return record.Task{}, errors.New("task_id: required; create_<operation> and list_tasks answer task ids")
	}
	var local int64
	if _, err := fmt.Sscanf(id, "#%d", &local); err == nil {
		return s.studio.Record().Task(ctx, local)
	}
	t, err := s.studio.Record().TaskByID(ctx, id)
	if errors.Is(err, record.ErrNotFound) {
		return t, fmt.Errorf("task_id: %q is not in this history (list_tasks searches it)", api.CleanText(id))
	}
	return t, err
}

func (s *Server) taskOut(ctx context.Context, t record.Task, detail bool) taskOut {
	out := taskOut{TaskID: api.CleanText(t.TaskID), LocalID: t.LocalID, Operation: string(t.Operation), Model: api.CleanText(t.Model),
		State: t.State, Progress: t.Progress, ErrCode: api.CleanText(t.ErrCode),
		Credits: t.Credits, Origin: string(t.Origin), Prompt: api.CleanText(t.Prompt), Tags: t.Tags, Note: api.CleanText(t.Note), CreatedAt: t.CreatedAt.UTC().Format(time.RFC3339)}
	if !detail {
		return out
	}
	if t.TaskID != "" && !api.IsTerminal(t.State) {
		out.Follow = follow(t.TaskID)
	}
	out.From, out.Onward = studio.Chain(t)
	for _, c := range t.Creations {
		r := resultOut{Index: c.Index, URL: api.CleanText(c.URL), CoverURL: api.CleanText(c.CoverURL)}
		if !c.URLExpiresAt.IsZero() {
			r.ExpiresAt = c.URLExpiresAt.UTC().Format(time.RFC3339)
		}
		out.Results = append(out.Results, r)
	}
	if t.TaskID != "" {
		if dls, err := s.studio.Record().Downloads(ctx, t.TaskID); err == nil {
			out.Files = filesOut(dls)
		}
	}
	return out
}

func filesOut(dls []record.Download) []fileOut {
	var out []fileOut
	for _, d := range dls {
		f := fileOut{Index: d.Index, Kind: string(d.Kind), Path: d.Path, Status: string(d.Status), Bytes: d.Bytes, Error: api.CleanText(d.Error)}
		if d.Status == record.DownloadDone && isImagePath(d.Path) {
			f.Resource = resourceURI(d)
		}
		out = append(out, f)
	}
	return out
}

func (s *Server) waitTask(ctx context.Context, req *sdk.CallToolRequest, in waitIn) (*sdk.CallToolResult, taskOut, error) {
	timeout := DefaultWait
	switch {
	case in.TimeoutSeconds < 0 || in.TimeoutSeconds > MaxWait.Seconds():
		return nil, taskOut{}, fmt.Errorf("timeout_seconds: give 1 to %g seconds, got %g", MaxWait.Seconds(), in.TimeoutSeconds)
	case in.TimeoutSeconds > 0:
		timeout = time.Duration(in.TimeoutSeconds * float64(time.Second))
	}
	t, err := s.task(ctx, in.TaskID)
	if err != nil {
		return nil, taskOut{}, err
	}
	if t.TaskID == "" {
		return nil, s.taskOut(ctx, t, true), nil // never sent: nothing to wait for
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	events := s.studio.Await(wctx, t) // followed from here if another clapper sent and left it
	token := req.Params.GetProgressToken()
	told, step := "", 0.0
	for {
		// Re-read the row: the event says a change, history holds all of it.
		if t, err = s.studio.Record().TaskByID(ctx, t.TaskID); err != nil {
			return nil, taskOut{}, err
		}
		if api.IsTerminal(t.State) {
			out := s.taskOut(ctx, t, true)
			out.Waited = "finished"
			return nil, out, nil
		}
		if msg := progressMessage(t); token != nil && msg != told {
			told, step = msg, step+1
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: step, Message: msg})
		}
		if _, open := <-events; open {
			continue
		}
		switch {
		case ctx.Err() != nil:
			return nil, taskOut{}, ctx.Err()
		case wctx.Err() != nil:
			out := s.taskOut(ctx, t, true)
			out.Waited = "timeout"
			return nil, out, nil
		}
		// The stream ended with the task (its final state, or lost): read
		// it once more above, then answer.
		if t, err = s.studio.Record().TaskByID(ctx, t.TaskID); err != nil {
			return nil, taskOut{}, err
		}
		out := s.taskOut(ctx, t, true)
		out.Waited = "finished"
		if !api.IsTerminal(t.State) {
			out.Waited = "lost"
		}
		return nil, out, nil
	}
}

// progressMessage is a running task's state, with its percent when the
// service reported one.
func progressMessage(t record.Task) string {
	msg := api.DescribeState(t.State)
	if t.Progress != nil {
		msg += fmt.Sprintf(" (%d%%)", *t.Progress)
	}
	return msg
}

type downloadsOut struct {
	TaskID string    `json:"task_id"`
	Files  []fileOut `json:"files"`
}

func (s *Server) downloadResults(ctx context.Context, _ *sdk.CallToolRequest, in taskIn) (*sdk.CallToolResult, downloadsOut, error) {
	t, err := s.task(ctx, in.TaskID)
	if err != nil {
		return nil, downloadsOut{}, err
	}
	if t.State != api.StateSuccess {
		return nil, downloadsOut{}, fmt.Errorf("task %s is %s: only a successful task has results to save (wait_task waits for it)", api.CleanText(t.TaskID), api.DescribeState(t.State))
	}
	if err := s.studio.DownloadWithCovers(ctx, t); err != nil {
		return nil, downloadsOut{}, err
	}
	sctx, cancel := context.WithTimeout(ctx, s.opts.DownloadWait)
	defer cancel()
	dls, err := s.studio.Settle(sctx, t.TaskID)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, downloadsOut{}, fmt.Errorf("the files of task %s are still downloading after %s; call download_results again to see them", t.TaskID, s.opts.DownloadWait)
	}
	if err != nil {
		return nil, downloadsOut{}, err
	}
	out := downloadsOut{TaskID: t.TaskID, Files: filesOut(dls)}
	return downloadContent(out), out, nil
}

// downloadContent lists the saved files for people and links each saved
// image as a resource, so a client can show it.
func downloadContent(out downloadsOut) *sdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "Files of task %s:", out.TaskID)
	res := &sdk.CallToolResult{}
	for _, f := range out.Files {
		fmt.Fprintf(&b, "\n  %s %s: %s", f.Kind, f.Status, f.Path)
		if f.Error != "" {
			b.WriteString(" (" + f.Error + ")")
		}
		if f.Resource != "" {
			res.Content = append(res.Content, &sdk.ResourceLink{URI: f.Resource, Name: filepath.Base(f.Path), MIMEType: imageType(f.Path)})
		}
	}
	res.Content = append([]sdk.Content{&sdk.TextContent{Text: b.String()}}, res.Content...)
	return res
}

type voiceOut struct {
	VoiceID   string `json:"voice_id"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at,omitempty"`
	TimeLeft  string `json:"time_left"`
	Kept      bool   `json:"kept"`
	Expired   bool   `json:"expired"`
	Preview   string `json:"preview_url,omitempty"`
}

type voicesOut struct {
	Voices []voiceOut `json:"voices"`
}

func (s *Server) listVoices(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, voicesOut, error) {
	all, err := s.studio.Record().Voices(ctx)
	if err != nil {
		return nil, voicesOut{}, err
	}
	now := s.now()
	out := voicesOut{Voices: []voiceOut{}}
	for _, v := range all {
		if v.Deleted {
			continue
		}
		vo := voiceOut{VoiceID: api.CleanText(v.VoiceID), CreatedAt: v.CreatedAt.UTC().Format(time.RFC3339), Kept: v.Kept,
			Expired: v.Expired(now), Preview: api.CleanText(v.DemoAudio)}
		switch {
		case v.Kept:
			vo.TimeLeft = "kept for good (used in time)"
		case vo.Expired:
			vo.TimeLeft = "expired: the service deleted it"
		default:
			vo.TimeLeft = timeLeft(v.ExpiresAt.Sub(now)) + " unless used in speech synthesis"
		}
		if !v.Kept {
			vo.ExpiresAt = v.ExpiresAt.UTC().Format(time.RFC3339)
		}
		out.Voices = append(out.Voices, vo)
	}
	return nil, out, nil
}

// timeLeft reads a duration to the minute: 6d 23h, 5h 02m, 14m.
func timeLeft(d time.Duration) string {
	d = d.Truncate(time.Minute)
	days, hours, mins := int(d.Hours())/24, int(d.Hours())%24, int(d.Minutes())%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case hours > 0:
		return fmt.Sprintf("%dh %02dm", hours, mins)
	}
	return fmt.Sprintf("%dm", mins)
}
