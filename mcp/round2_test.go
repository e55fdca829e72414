package mcp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
)

// waitForRunning creates a text2video task on a rig whose sandbox clock
// stands still and returns its id: it stays running until the test moves
// the clock.
func waitForRunning(t *testing.T, r *rig) string {
	t.Helper()
	var c created
	r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a lighthouse at night"}, &c)
	return c.TaskID
}

// wait_task tells its progress at least every period, with the seconds
// the task has run as progress (growing) and its usual time as total
// (moved ahead of the progress once the task runs longer than usual), in
// words a person reads; without a progress token it tells nothing.
func TestWaitTellsProgressEveryPeriodWithATotal(t *testing.T) {
	clk := sandbox.NewFakeClock(time.Now())
	r := newRig(t, rigOpts{clock: clk, server: Options{ProgressEvery: 40 * time.Millisecond}})
	id := waitForRunning(t, r)
	res, err := r.cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "wait_task", Arguments: map[string]any{"task_id": id, "timeout_seconds": 1},
		Meta: sdk.Meta{"progressToken": "w1"}})
	if err != nil || res.IsError {
		t.Fatalf("wait_task: %v %s", err, text(res))
	}
	var out taskOut
	decode(t, res, &out)
	if out.Waited != "timeout" {
		t.Fatalf("the task ended while the sandbox's clock stood still: %+v", out)
	}
	r.mu.Lock()
	told := slices.Clone(r.told)
	r.mu.Unlock()
	// A second at one notification per 40 ms: far more than three however
	// busy the machine, while a state-change-only wait tells one.
	if len(told) < 4 {
		t.Fatalf("%d progress notifications in a 1 s wait at one per 40 ms", len(told))
	}
	for i, p := range told {
		if p.Total <= p.Progress || !strings.Contains(p.Message, " · ") || (i > 0 && p.Progress <= told[i-1].Progress) {
			t.Errorf("notification %d: progress %v of %v, %q (the one before: %v)", i, p.Progress, p.Total, p.Message, told[max(i-1, 0)].Progress)
		}
	}
	r.mu.Lock()
	r.told = nil
	r.mu.Unlock()
	r.ok(t, "wait_task", map[string]any{"task_id": id, "timeout_seconds": 0.2}, &out)
	r.mu.Lock()
	defer r.mu.Unlock()
	// A notice of the first wait may still arrive after it answered (the
	// transport does not order them): only one for another token counts.
	for _, p := range r.told {
		if p.ProgressToken != "w1" {
			t.Errorf("progress told to a client that asked for none: %+v", p)
		}
	}
}

// download_results tells progress while the files arrive: a large video
// takes minutes, longer than clients wait in silence.
func TestDownloadsTellProgressWhileTheFilesArrive(t *testing.T) {
	r := newRig(t, rigOpts{counted: true, slowFiles: 300 * time.Millisecond, server: Options{ProgressEvery: 40 * time.Millisecond}})
	var c created
	r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox"}, &c)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	r.mu.Lock()
	r.told = nil
	r.mu.Unlock()
	res, err := r.cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "download_results", Arguments: map[string]any{"task_id": c.TaskID},
		Meta: sdk.Meta{"progressToken": "d1"}})
	if err != nil || res.IsError {
		t.Fatalf("download_results: %v %s", err, text(res))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// The files take at least 300 ms: several periods of 40 ms.
	if len(r.told) < 2 || !strings.HasPrefix(r.told[0].Message, "saving the files · ") {
		t.Fatalf("%d notifications while the files took 300 ms: %+v", len(r.told), r.told)
	}
}

// The total is the usual time: the median of the history's successes of
// that operation and model.
func TestProgressTotalIsTheUsualTime(t *testing.T) {
	if got := runningMessage(record.Task{State: api.StateProcessing}, 20*time.Second, 45*time.Second); got != "processing · 20 s of ~45 s" {
		t.Errorf("message %q", got)
	}
	p := int64(40)
	if got := runningMessage(record.Task{State: api.StateProcessing, Progress: &p}, 130*time.Second, 45*time.Second); got != "processing 40% · 2 min 10 s, longer than the usual ~45 s" {
		t.Errorf("message %q", got)
	}
	r := newRig(t, rigOpts{})
	for range 3 {
		var c created
		r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox"}, &c)
		var done taskOut
		r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	}
	want, n := r.st.UsualTime(t.Context(), api.OpText2Video, "svcq1")
	if n != 3 {
		t.Fatalf("usual time of %d successes, want 3", n)
	}
	u, err := r.st.Record().UsualDuration(t.Context(), api.OpText2Video, "svcq1")
	if err != nil || u.Median != want {
		t.Errorf("usual time %v, history's median %v (%v)", want, u.Median, err)
	}
}

func toolNames(t *testing.T, r *rig) []string {
	t.Helper()
	res, err := r.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// --toolsets, --tools, --read-only and --compact narrow the list; a name
// the server does not have is refused naming those it has.
func TestToolListsNarrowToTheJob(t *testing.T) {
	tasks := newRig(t, rigOpts{server: Options{Toolsets: []string{SetTasks, SetAccount}}})
	if got, want := toolNames(t, tasks), []string{"cancel_task", "download_results", "get_account", "get_task", "list_tasks", "wait_task"}; !slices.Equal(got, want) {
		t.Errorf("--toolsets tasks,account: %v, want %v", got, want)
	}
	one := newRig(t, rigOpts{server: Options{Toolsets: []string{SetVoices}, Tools: []string{"get_task"}}})
	if got := toolNames(t, one); !slices.Equal(got, []string{"get_task", "list_voices"}) {
		t.Errorf("--toolsets voices --tools get_task: %v", got)
	}
	ro := newRig(t, rigOpts{server: Options{ReadOnly: true}})
	res, err := ro.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if !tool.Annotations.ReadOnlyHint || strings.HasPrefix(tool.Name, "create") || tool.Name == "edit_scene" || tool.Name == "compose_scenes" || tool.Name == "cancel_task" {
			t.Errorf("--read-only lists %s", tool.Name)
		}
	}
	if len(res.Tools) != 8 {
		t.Errorf("--read-only lists %d tools, want the 8 that change nothing", len(res.Tools))
	}
	if _, err := ro.cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "create_text2video", Arguments: map[string]any{"model": "svcq1", "prompt": "x"}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("an unlisted tool called: %v", err)
	}
	compact := newRig(t, rigOpts{server: Options{Compact: true}})
	names := toolNames(t, compact)
	if !slices.Contains(names, "create") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "create_") }) {
		t.Errorf("--compact: %v", names)
	}
	var c created
	compact.ok(t, "create", map[string]any{"operation": "start_end2video", "request": map[string]any{"model": "svcq1", "prompt": "dusk",
		"images": []string{"https://example.com/a.png", "https://example.com/b.png"}}}, &c)
	if c.Operation != "start-end2video" || c.TaskID == "" {
		t.Errorf("compact create: %+v", c)
	}
	if got := compact.refused(t, "create", map[string]any{"operation": "text2video", "request": map[string]any{"model": "svcq1"}}); !strings.Contains(got, "prompt") {
		t.Errorf("compact create checks the rules: %s", got)
	}
	if got := compact.refused(t, "create", map[string]any{"operation": "text3video", "request": map[string]any{}}); !strings.Contains(got, "choose one of") {
		t.Errorf("compact create of an unknown operation: %s", got)
	}
	for _, o := range []Options{{Toolsets: []string{"spending"}}, {Tools: []string{"get_tasks"}}, {Compact: true, Tools: []string{"create_mv"}}} {
		_, err := New(tasks.st, o)
		if err == nil || !strings.Contains(err.Error(), "choose from") {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// listBytes is the size of the tool list as a client receives it, and
// of its part for the five operations of 2026.
func listBytes(t *testing.T, r *rig) (all, newer int) {
	t.Helper()
	res, err := r.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if op, err := parseOperation(tool.Name); err == nil && !op.IsSpecOperation() && tool.Name != "create" {
			tb, _ := json.Marshal(tool)
			newer += len(tb)
		}
	}
	return len(b), newer
}

// The default list, without the tools of the five operations added since,
// is at least a third smaller than the 43,435 bytes it was (about 10,800
// tokens), output schemas and annotations included; each of the five
// costs at most 1,300 bytes (the spec's fourteen average about 1,100); the
// compact one is a fraction of it.
func TestTheToolListIsSizedToTheJob(t *testing.T) {
	const before = 43435
	full, newer := listBytes(t, newRig(t, rigOpts{}))
	if full-newer > before*2/3 {
		t.Errorf("the default tool list is %d bytes without the 2026 tools, want at most %d (two thirds of %d)", full-newer, before*2/3, before)
	}
	if newer > 5*1300 {
		t.Errorf("the five 2026 create tools take %d bytes, want at most %d", newer, 5*1300)
	}
	compact, _ := listBytes(t, newRig(t, rigOpts{server: Options{Compact: true}}))
	if compact > full/2 {
		t.Errorf("the compact list is %d bytes of the default's %d", compact, full)
	}
	t.Logf("tool list: %d bytes (about %d tokens; the 2026 tools %d), compact %d bytes (about %d tokens); it was %d", full, full/4, newer, compact, compact/4, before)
}

// Every tool says what it does to the world, never leaving a hint to the
// protocol's defaults (which assume it destroys); fixed answers have an
// output schema, and their text is words, not the JSON again.
func TestEveryToolIsAnnotatedAndAnswersInWords(t *testing.T) {
	r := newRig(t, rigOpts{})
	res, err := r.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"create_text2video": "spends", "edit_scene": "spends", "compose_scenes": "spends",
		"get_task": "reads", "list_tasks": "reads", "validate_request": "reads", "describe_operation": "reads", "list_voices": "reads",
		"wait_task": "reads-world", "get_account": "reads-world", "get_scenes": "reads-world",
		"download_results": "saves", "cancel_task": "cancels"}
	for _, tool := range res.Tools {
		a := tool.Annotations
		if a == nil || a.OpenWorldHint == nil || (!a.ReadOnlyHint && a.DestructiveHint == nil) {
			t.Errorf("%s: annotations %+v leave a hint to the defaults", tool.Name, a)
			continue
		}
		// The create tools' answer is one shape for all nineteen: its
		// schema would be listed nineteen times (the compact create has it).
		if tool.OutputSchema == nil && !strings.HasPrefix(tool.Name, "create_") {
			t.Errorf("%s: no output schema", tool.Name)
		}
		var kind string
		switch {
		case a.ReadOnlyHint && !*a.OpenWorldHint:
			kind = "reads"
		case a.ReadOnlyHint:
			kind = "reads-world"
		case *a.DestructiveHint:
			kind = "cancels"
		case a.IdempotentHint:
			kind = "saves"
		default:
			kind = "spends"
		}
		if w, ok := want[tool.Name]; ok && w != kind {
			t.Errorf("%s is annotated as one that %s, want %s", tool.Name, kind, w)
		}
	}
	for name, args := range map[string]any{"create_text2video": map[string]any{"model": "svcq1", "prompt": "a fox"},
		"list_tasks": map[string]any{}, "list_voices": map[string]any{}, "get_account": map[string]any{},
		"validate_request":   map[string]any{"operation": "text2video", "request": map[string]any{"model": "svcq1", "prompt": "x"}},
		"describe_operation": map[string]any{"operation": "premium-mv"}} {
		res := r.call(t, name, args)
		if res.IsError || res.StructuredContent == nil {
			t.Errorf("%s: %s", name, text(res))
			continue
		}
		if got := text(res); strings.HasPrefix(strings.TrimSpace(got), "{") || strings.Contains(got, `":`) {
			t.Errorf("%s answers JSON as text: %.200s", name, got)
		}
	}
}

// A send above the price bound asks the person through the client; a
// yes sends it, a no sends nothing; a client that cannot ask is refused
// with why and what to change, unless the configuration allows it.
// validate_request says all of it beforehand, with the caps' headroom.
func TestSpendingAsksThePersonFirst(t *testing.T) {
	req := map[string]any{"model": "svcq1", "prompt": "a fox", "duration": 5}
	yes := newRig(t, rigOpts{server: Options{Consent: Consent{Above: 10}},
		elicit: func(*sdk.ElicitParams) *sdk.ElicitResult {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"send": true}}
		}})
	var c created
	yes.ok(t, "create_text2video", req, &c)
	yes.mu.Lock()
	asked := slices.Clone(yes.asked)
	yes.mu.Unlock()
	if c.TaskID == "" || len(asked) != 1 || !strings.Contains(asked[0], "more than the 10 an agent may spend without asking") {
		t.Errorf("asked %q, created %+v", asked, c)
	}
	no := newRig(t, rigOpts{counted: true, server: Options{Consent: Consent{Above: 10}},
		elicit: func(*sdk.ElicitParams) *sdk.ElicitResult { return &sdk.ElicitResult{Action: "decline"} }})
	if got := no.refused(t, "create_text2video", req); !strings.Contains(got, "declined") || no.posts.Load() != 0 {
		t.Errorf("declined: %s; %d sent", got, no.posts.Load())
	}
	// A live service's first send of a kind has no known price: it asks.
	mute := newRig(t, rigOpts{counted: true, server: Options{Consent: Consent{Above: 10}}})
	if got := mute.refused(t, "create_text2video", req); !strings.Contains(got, "cannot ask") || !strings.Contains(got, "its price is unknown") ||
		!strings.Contains(got, "--unconfirmed") || mute.posts.Load() != 0 {
		t.Errorf("a client that cannot ask: %s; %d sent", got, mute.posts.Load())
	}
	var v verdict
	mute.ok(t, "validate_request", map[string]any{"operation": "text2video", "request": req}, &v)
	if !v.Valid || !strings.Contains(v.Confirm, "would ask the person first") || !strings.Contains(v.Confirm, "would be refused") {
		t.Errorf("validate_request: %+v", v)
	}
	// Within the bound nothing asks.
	free := newRig(t, rigOpts{server: Options{Consent: Consent{Above: 1000}}})
	free.ok(t, "create_text2video", req, &c)
	// Near a cap: a 38-credit send on top of 38 takes a cap of 90 past
	// its 72nd credit (80 %) but not past its end.
	capped := newRig(t, rigOpts{cap: 90, server: Options{Consent: Consent{Above: 1000, Unasked: true}}})
	capped.ok(t, "create_text2video", req, &c)
	v = verdict{}
	capped.ok(t, "validate_request", map[string]any{"operation": "text2video", "request": req}, &v)
	if v.Spending == nil || len(v.Spending.Caps) == 0 || v.Spending.Caps[0].Scope != "agent work" || v.Spending.Caps[0].Spent == 0 {
		t.Fatalf("validate_request's spending: %+v", v.Spending)
	}
	if !strings.Contains(v.Confirm, "takes the credit cap for agent work today to 76 of 90") || v.Spending.Refused != "" {
		t.Errorf("near the cap: %+v %+v", v, v.Spending)
	}
	// Past the cap: validate_request says a send would be refused.
	capped.ok(t, "create_text2video", req, &c)
	v = verdict{}
	capped.ok(t, "validate_request", map[string]any{"operation": "text2video", "request": req}, &v)
	if !strings.Contains(v.Spending.Refused, "daily credit cap for agent work") {
		t.Errorf("at the cap validate_request says %+v", v.Spending)
	}
}

// get_account tells credits, the service's running and queued tasks,
// spending and caps; list_voices gives the system voices too.
func TestAccountAndSystemVoices(t *testing.T) {
	r := newRig(t, rigOpts{cap: 500})
	var a accountOut
	r.ok(t, "get_account", map[string]any{}, &a)
	if a.Credits <= 0 || !a.Concurrency || a.Limit <= 0 || len(a.Caps) != 1 || a.Caps[0].Cap != 500 || !strings.Contains(a.Service, "sandbox") {
		t.Errorf("get_account: %+v", a)
	}
	var v voicesOut
	r.ok(t, "list_voices", map[string]any{}, &v)
	if len(v.System) == 0 || !slices.ContainsFunc(v.System, func(s systemVoiceOut) bool { return s.VoiceID == "English_Graceful_Lady" }) {
		t.Errorf("system voices: %+v", v.System)
	}
}

// cancel_task cancels what the service can (a queued task) and refuses
// the rest, saying why.
func TestCancelWhatTheServiceCan(t *testing.T) {
	clk := sandbox.NewFakeClock(time.Now())
	r := newRig(t, rigOpts{clock: clk})
	// Six at once: the sandbox runs five, the sixth waits in the queue.
	var ids []string
	for range 6 {
		ids = append(ids, waitForRunning(t, r))
	}
	var queued string
	for deadline := time.Now().Add(20 * time.Second); queued == ""; time.Sleep(5 * time.Millisecond) {
		for _, id := range ids {
			var got taskOut
			r.ok(t, "get_task", map[string]any{"task_id": id}, &got)
			if got.State == api.StateQueueing || got.State == api.StateCreated {
				queued = id
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no task waited in the queue")
		}
	}
	var c cancelOut
	r.ok(t, "cancel_task", map[string]any{"task_id": queued}, &c)
	if c.TaskID != queued || !api.IsTerminal(c.State) {
		t.Errorf("cancelled: %+v", c)
	}
	clk.Advance(time.Hour)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": ids[0], "timeout_seconds": 30}, &done)
	if got := r.refused(t, "cancel_task", map[string]any{"task_id": ids[0]}); !strings.Contains(got, "already ended") {
		t.Errorf("cancel of a finished task: %s", got)
	}
	if got := r.refused(t, "cancel_task", map[string]any{"task_id": "nope"}); !strings.Contains(got, "not in this history") {
		t.Errorf("cancel of an unknown task: %s", got)
	}
}

// A task is a resource (state, request, results) a client can subscribe
// to: it is told each time the task moves.
func TestTaskResourcesAndSubscriptions(t *testing.T) {
	clk := sandbox.NewFakeClock(time.Now())
	updates := make(chan string, 64)
	r := newRig(t, rigOpts{clock: clk, resourceUpdated: func(uri string) { updates <- uri }})
	id := waitForRunning(t, r)
	uri := "clapper://task/" + id
	rr, err := r.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read %s: %v %+v", uri, err, rr)
	}
	var tr struct {
		TaskID  string         `json:"task_id"`
		State   string         `json:"state"`
		Request map[string]any `json:"request"`
	}
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &tr); err != nil || tr.TaskID != id || tr.Request["prompt"] != "a lighthouse at night" {
		t.Fatalf("task resource %s: %v", rr.Contents[0].Text, err)
	}
	if err := r.cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	waitSubscribed(t, r, uri, 1)
	for _, bad := range []string{"clapper://task/nope", "clapper://result/" + id + "/0", "file:///etc/passwd"} {
		if err := r.srv.subs.subscribe(t.Context(), &sdk.SubscribeRequest{Params: &sdk.SubscribeParams{URI: bad}}); err == nil {
			t.Errorf("a subscription to %s was taken", bad)
		}
	}
	clk.Advance(time.Hour)
	select {
	case got := <-updates:
		if got != uri {
			t.Errorf("update of %s, want %s", got, uri)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no update as the task finished")
	}
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": id, "timeout_seconds": 30}, &done)
	if done.State != api.StateSuccess {
		t.Fatalf("waited: %+v", done)
	}
}

// Video and audio results are resources with their type and size; a file
// past the bound is a file:// link, never inlined.
func TestVideoResultsAreResourcesWithTypeAndSize(t *testing.T) {
	r := newRig(t, rigOpts{})
	var c created
	r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox"}, &c)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	res := r.call(t, "download_results", map[string]any{"task_id": c.TaskID})
	var video *sdk.ResourceLink
	for _, ct := range res.Content {
		if l, ok := ct.(*sdk.ResourceLink); ok && strings.HasPrefix(l.MIMEType, "video/") {
			video = l
		}
	}
	if video == nil || video.Size == nil || *video.Size <= 0 || !strings.HasPrefix(video.URI, "clapper://result/") {
		t.Fatalf("no video link with its size: %+v", res.Content)
	}
	rr, err := r.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: video.URI})
	if err != nil || rr.Contents[0].MIMEType != video.MIMEType || int64(len(rr.Contents[0].Blob)) != *video.Size {
		t.Fatalf("read the video: %v", err)
	}
	small, err := New(r.st, Options{MaxResourceBytes: 16})
	if err != nil {
		t.Fatal(err)
	}
	dls, err := r.st.Record().Downloads(t.Context(), c.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dls {
		if d.Kind == record.KindURL {
			if l := small.fileLink(d); !strings.HasPrefix(l.URI, "file://") || !strings.Contains(l.Description, "open the file") {
				t.Errorf("a video past the bound: %+v", l)
			}
		}
	}
	mp4 := filepath.Join(t.TempDir(), "x.mp4")
	os.WriteFile(mp4, []byte("MZ\x90\x00 an executable named as a video"), 0o600)
	if _, err := r.srv.fileContents("clapper://result/x/0", mp4); err == nil || !strings.Contains(err.Error(), "not the video/mp4") {
		t.Errorf("a file that is no video: %v", err)
	}
}

// list_tasks pages with a cursor; a search word it cannot read is an
// error naming what it takes.
func TestListTasksPagesWithACursor(t *testing.T) {
	r := newRig(t, rigOpts{})
	var want []string
	for range 5 {
		var c created
		r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox"}, &c)
		want = append([]string{c.TaskID}, want...)
	}
	var got []string
	cursor := ""
	for range 4 {
		var page taskList
		r.ok(t, "list_tasks", map[string]any{"limit": 2, "cursor": cursor}, &page)
		for _, tk := range page.Tasks {
			got = append(got, tk.TaskID)
		}
		if page.More != (page.Cursor != "") {
			t.Errorf("more %v with cursor %q", page.More, page.Cursor)
		}
		if cursor = page.Cursor; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged %v, want %v", got, want)
	}
	if msg := r.refused(t, "list_tasks", map[string]any{"cursor": "bogus!"}); !strings.Contains(msg, "not a cursor list_tasks gave") {
		t.Errorf("bad cursor: %s", msg)
	}
	if msg := r.refused(t, "list_tasks", map[string]any{"query": "state:done"}); !strings.Contains(msg, "a state is one of created") {
		t.Errorf("unknown state word: %s", msg)
	}
	for _, name := range []string{"premium-mv", "premium_mv", "create_premium_mv", "start_end2video", "lip-sync"} {
		var rules rulesOut
		r.ok(t, "describe_operation", map[string]any{"operation": name}, &rules)
		if rules.Operation == "" {
			t.Errorf("describe_operation %s: %+v", name, rules)
		}
	}
}

// Three prompts show the studio off, each naming only tools the server
// lists, and saying so when the options left one out.
func TestPromptsUseOnlyTheListedTools(t *testing.T) {
	r := newRig(t, rigOpts{})
	res, err := r.cs.ListPrompts(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"clip_from_idea", "clone_then_speak", "storyboard"}) {
		t.Fatalf("prompts %v", names)
	}
	tools := toolNames(t, r)
	args := map[string]map[string]string{"clip_from_idea": {"idea": "a fox in snow"}, "storyboard": {"story": "a day at sea", "scenes": "3"},
		"clone_then_speak": {"recording": "https://example.com/me.wav", "text": "hello"}}
	for name, a := range args {
		p, err := r.cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: name, Arguments: a})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		body := p.Messages[0].Content.(*sdk.TextContent).Text
		for _, word := range strings.FieldsFunc(body, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '\n' || r == '(' || r == ')' }) {
			toolish := false
			for _, verb := range []string{"create_", "get_", "list_", "wait_", "download_", "cancel_", "edit_", "compose_", "describe_", "validate_"} {
				toolish = toolish || strings.HasPrefix(word, verb)
			}
			if toolish && !slices.Contains(tools, word) {
				t.Errorf("%s names %q, which is no listed tool", name, word)
			}
		}
		for _, v := range a {
			if !strings.Contains(body, v) {
				t.Errorf("%s leaves out its argument %q", name, v)
			}
		}
	}
	for _, args := range []map[string]string{{"story": "x", "scenes": "99"}, {}} {
		var werr *jsonrpc.Error
		if _, err := r.cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: "storyboard", Arguments: args}); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("storyboard %v: %v, want invalid params", args, err)
		}
	}
	narrow := newRig(t, rigOpts{server: Options{Toolsets: []string{SetTasks}}})
	p, err := narrow.cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: "clip_from_idea", Arguments: map[string]string{"idea": "x"}})
	if err != nil || !strings.Contains(p.Messages[0].Content.(*sdk.TextContent).Text, "create_reference2image (not offered") {
		t.Errorf("a prompt whose tool is not listed: %v", err)
	}
}

// waitSubscribed waits until the server holds n subscriptions to uri:
// Subscribe returns before the server takes one (the SDK sends its
// subscriptions/listen without waiting), so a change made at once could
// come before anyone is subscribed.
func waitSubscribed(t *testing.T, r *rig, uri string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		r.srv.subs.mu.Lock()
		held := r.srv.subs.uris[uri]
		r.srv.subs.mu.Unlock()
		if held == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server holds %d subscriptions to %s, want %d", held, uri, n)
		}
	}
}
