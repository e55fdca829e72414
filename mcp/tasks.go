package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
	"clapper/studio"
)

type taskIn struct {
	TaskID string `json:"task_id" jsonschema:"a task id, or #local id"`
}

type waitIn struct {
	TaskID         string  `json:"task_id" jsonschema:"a task id, or #local id"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"1 to 600 (default 50)"`
}

type listIn struct {
	Query  string `json:"query,omitempty" jsonschema:"words state: op: model: tag: by: from: to:"`
	Limit  int    `json:"limit,omitempty" jsonschema:"1 to 200 (default 20)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"from the previous page"`
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
	// From are the tasks this one was sent onward from (each result filled
	// its Field), Onward the tasks sent onward from this one.
	From   []studio.ChainLink `json:"sent_onward_from,omitempty"`
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
	MIMEType string `json:"mime_type,omitempty"`
	Error    string `json:"error,omitempty"`
	// Resource reads the saved file (clapper://), or opens it past the
	// size a resource may be (file://).
	Resource string `json:"resource,omitempty"`
}

type taskList struct {
	Tasks []taskOut `json:"tasks"`
	More  bool      `json:"more"`
	// Cursor fetches the next page; empty on the last.
	Cursor string `json:"cursor,omitempty"`
}

func (s *Server) addTaskTools() {
	add(s, SetTasks, &sdk.Tool{Name: "get_task", Title: "Read a task", Annotations: readsHistory,
		Description: "A task from the history: state, progress, result URLs, saved files, and the tasks it was sent onward from and to."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in taskIn) (*sdk.CallToolResult, taskOut, error) {
			t, err := s.task(ctx, in.TaskID)
			if err != nil {
				return nil, taskOut{}, err
			}
			return nil, s.taskOut(ctx, t, true), nil
		})
	add(s, SetTasks, &sdk.Tool{Name: "wait_task", Title: "Wait for a task", Annotations: readsService,
		Description: "Waits until a task ends or timeout_seconds pass (then answers it as it stands: call again). Tells progress every 10 s: seconds run of its usual time."},
		s.waitTask)
	add(s, SetTasks, &sdk.Tool{Name: "list_tasks", Title: "Search the history", Annotations: readsHistory,
		Description: "Searches the history, newest first: " + record.SearchSyntax + ". Pages by cursor."},
		s.listTasks)
	add(s, SetTasks, &sdk.Tool{Name: "download_results", Title: "Save a task's results", Annotations: saves,
		Description: "Saves a finished task's results and covers into the download folders; answers each file's path and resource."},
		s.downloadResults)
	add(s, SetVoices, &sdk.Tool{Name: "list_voices", Title: "Voices", Annotations: readsHistory,
		Description: "Voices for audio-tts: the cloned ones with their time left (deleted 168 h after cloning unless used in speech by then; then kept for good) and the service's own."},
		s.listVoices)
}

func (s *Server) listTasks(ctx context.Context, _ *sdk.CallToolRequest, in listIn) (*sdk.CallToolResult, taskList, error) {
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
	if in.Cursor != "" {
		if f.After, err = parseCursor(in.Cursor); err != nil {
			return nil, taskList{}, err
		}
	}
	page, err := s.studio.Record().Tasks(ctx, f)
	if err != nil {
		return nil, taskList{}, err
	}
	out := taskList{Tasks: []taskOut{}, More: !page.Next.IsZero()}
	if out.More {
		out.Cursor = formatCursor(page.Next)
	}
	for _, t := range page.Tasks {
		out.Tasks = append(out.Tasks, s.taskOut(ctx, t, false))
	}
	return nil, out, nil
}

// formatCursor writes a page's end as list_tasks answers it: opaque to
// the agent, readable to us.
func formatCursor(c record.Cursor) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d.%d", c.CreatedAt.UnixMilli(), c.LocalID))
}

func parseCursor(s string) (record.Cursor, error) {
	bad := fmt.Errorf("cursor: %q is not a cursor list_tasks gave; leave it out for the first page", api.CleanText(s))
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return record.Cursor{}, bad
	}
	var ms, id int64
	if n, err := fmt.Sscanf(string(b), "%d.%d", &ms, &id); err != nil || n != 2 || id <= 0 {
		return record.Cursor{}, bad
	}
	return record.Cursor{CreatedAt: time.UnixMilli(ms), LocalID: id}, nil
}

// task reads a task by its service id (or #local id) from history.
func (s *Server) task(ctx context.Context, id string) (record.Task, error) {
	if id == "" {
		return record.Task{}, errors.New("task_id: required; create_<operation> and list_tasks answer task ids")
	}
	var (
		t     record.Task
		err   error
		local int64
	)
	if _, serr := fmt.Sscanf(id, "#%d", &local); serr == nil {
		t, err = s.studio.Record().Task(ctx, local)
	} else {
		t, err = s.studio.Record().TaskByID(ctx, id)
	}
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
			out.Files = s.filesOut(dls)
		}
	}
	return out
}

func (s *Server) filesOut(dls []record.Download) []fileOut {
	var out []fileOut
	for _, d := range dls {
		f := fileOut{Index: d.Index, Kind: string(d.Kind), Path: d.Path, Status: string(d.Status), Bytes: d.Bytes, Error: api.CleanText(d.Error)}
		if d.Status == record.DownloadDone && mediaType(d.Path) != "" {
			f.MIMEType, f.Resource = mediaType(d.Path), s.fileLink(d).URI
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
	usual, _ := s.studio.UsualTime(ctx, t.Operation, t.Model)
	p := newProgress(req, s.opts.ProgressEvery)
	defer p.stop()
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
		elapsed := s.now().Sub(t.CreatedAt)
		// Past its usual time the total moves ahead of the progress: a
		// progress past its total reads as a broken bar.
		total := max(usual, elapsed+max(usual/4, 5*time.Second))
		if elapsed < usual {
			total = usual
		}
		p.tell(ctx, elapsed.Seconds(), total.Seconds(), runningMessage(t, elapsed, usual))
		open := true
		select {
		case _, open = <-events:
		case <-p.due():
		}
		if open {
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
		// it once more, then answer.
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

// runningMessage is a running task's state for a person: its percent when
// the service reported one, how long it has run and usually takes
// ("processing · 20 s of ~45 s").
func runningMessage(t record.Task, elapsed, usual time.Duration) string {
	msg := api.DescribeState(t.State)
	if t.Progress != nil {
		msg += fmt.Sprintf(" %d%%", *t.Progress)
	}
	if elapsed > usual {
		return fmt.Sprintf("%s · %s, longer than the usual ~%s", msg, seconds(elapsed), seconds(usual))
	}
	return fmt.Sprintf("%s · %s of ~%s", msg, seconds(elapsed), seconds(usual))
}

// seconds says a duration to the second: 45 s, 3 min 5 s.
func seconds(d time.Duration) string {
	n := int(max(d, 0).Round(time.Second).Seconds())
	if n < 120 {
		return fmt.Sprintf("%d s", n)
	}
	return fmt.Sprintf("%d min %d s", n/60, n%60)
}

type downloadsOut struct {
	TaskID string    `json:"task_id"`
	Files  []fileOut `json:"files"`
}

func (s *Server) downloadResults(ctx context.Context, req *sdk.CallToolRequest, in taskIn) (*sdk.CallToolResult, downloadsOut, error) {
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
	dls, err := s.settle(sctx, req, t.TaskID)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, downloadsOut{}, fmt.Errorf("the files of task %s are still downloading after %s; call download_results again to see them", t.TaskID, s.opts.DownloadWait)
	}
	if err != nil {
		return nil, downloadsOut{}, err
	}
	s.subs.changed(ctx, t.TaskID)
	out := downloadsOut{TaskID: t.TaskID, Files: s.filesOut(dls)}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.summary()}}}
	// Each saved file linked, so a client can show or open it.
	for _, d := range dls {
		if d.Status == record.DownloadDone && mediaType(d.Path) != "" {
			res.Content = append(res.Content, s.fileLink(d))
		}
	}
	return res, out, nil
}

// settle waits for a task's files to be saved, telling the seconds it has
// waited at least every progress period (a large video takes minutes).
func (s *Server) settle(ctx context.Context, req *sdk.CallToolRequest, taskID string) ([]record.Download, error) {
	type settled struct {
		dls []record.Download
		err error
	}
	done := make(chan settled, 1)
	go func() {
		dls, err := s.studio.Settle(ctx, taskID)
		done <- settled{dls, err}
	}()
	p := newProgress(req, s.opts.ProgressEvery)
	defer p.stop()
	start := time.Now()
	for {
		select {
		case r := <-done:
			return r.dls, r.err
		case <-p.due():
			waited := time.Since(start)
			p.tell(ctx, waited.Seconds(), 0, "saving the files · "+seconds(waited))
		}
	}
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

type systemVoiceOut struct {
	VoiceID string `json:"voice_id"`
	Name    string `json:"description"`
}

type voicesOut struct {
	// Voices are the cloned ones, System the service's own (used by id,
	// never expiring).
	Voices []voiceOut       `json:"voices"`
	System []systemVoiceOut `json:"system_voices"`
}

func (s *Server) listVoices(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, voicesOut, error) {
	all, err := s.studio.Record().Voices(ctx)
	if err != nil {
		return nil, voicesOut{}, err
	}
	now := s.now()
	out := voicesOut{Voices: []voiceOut{}, System: []systemVoiceOut{}}
	for _, v := range catalog.SystemVoices {
		out.System = append(out.System, systemVoiceOut{VoiceID: v.ID, Name: v.Description})
	}
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
