package mcp

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/record"
)

// wait_task waits ten minutes at most: 600 s is taken, 601 s refused
// naming the bound.
func TestWaitTakesTenMinutesAtMost(t *testing.T) {
	r := newRig(t, rigOpts{})
	if msg := r.refused(t, "wait_task", map[string]any{"task_id": "x", "timeout_seconds": 601}); !strings.Contains(msg, "timeout_seconds: give 1 to 600 seconds, got 601") {
		t.Errorf("601 s: %s", msg)
	}
	if msg := r.refused(t, "wait_task", map[string]any{"task_id": "x", "timeout_seconds": 600}); strings.Contains(msg, "timeout_seconds") {
		t.Errorf("600 s refused: %s", msg)
	}
}

// A result whose download is queued, not saved, is not served: reading it
// says so and what to call.
func TestAResultNotSavedYetIsNotServed(t *testing.T) {
	r := newRig(t, rigOpts{})
	id := createAndWait(t, r)
	path := filepath.Join(t.TempDir(), "half.mp4")
	os.WriteFile(path, []byte("\x00\x00\x00\x18ftypmp42 half of a video"), 0o600)
	if _, err := r.st.Record().QueueDownload(t.Context(), id, 0, record.KindURL, path); err != nil {
		t.Fatal(err)
	}
	_, err := r.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "clapper://result/" + id + "/0"})
	if err == nil || !strings.Contains(err.Error(), "is not saved (queued): call download_results first") {
		t.Errorf("a queued result read: %v", err)
	}
}

func createAndWait(t *testing.T, r *rig) string {
	t.Helper()
	var c created
	r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox"}, &c)
	var done taskOut
	r.ok(t, "wait_task", map[string]any{"task_id": c.TaskID, "timeout_seconds": 30}, &done)
	return c.TaskID
}

// A QuickTime file is served as video/quicktime, not as the mp4 it
// shares its box layout with.
func TestAMovIsServedAsQuickTime(t *testing.T) {
	r := newRig(t, rigOpts{})
	mov := filepath.Join(t.TempDir(), "x.mov")
	os.WriteFile(mov, []byte("\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00qt  a movie"), 0o600)
	res, err := r.srv.fileContents("clapper://result/x/0", mov)
	if err != nil || res.Contents[0].MIMEType != "video/quicktime" {
		t.Errorf("a .mov: %v %+v", err, res)
	}
}

// The price bound is the most an agent spends unasked: a 38-credit send
// asks when the bound is 37, and not when it is 38.
func TestConsentAsksAboveTheBoundOnly(t *testing.T) {
	req := map[string]any{"model": "svcq1", "prompt": "a fox", "duration": 5}
	for _, c := range []struct {
		above int64
		asks  bool
	}{{37, true}, {38, false}} {
		r := newRig(t, rigOpts{server: Options{Consent: Consent{Above: c.above}},
			elicit: func(*sdk.ElicitParams) *sdk.ElicitResult {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"send": true}}
			}})
		var out created
		r.ok(t, "create_text2video", req, &out)
		r.mu.Lock()
		asked := len(r.asked)
		r.mu.Unlock()
		if (asked > 0) != c.asks {
			t.Errorf("a 38-credit send with --confirm-above %d: asked %d times", c.above, asked)
		}
	}
}

// Only a yes sends: an answer that accepts the form but leaves "send it"
// unticked, and a cancelled question, send nothing.
func TestOnlyAYesSends(t *testing.T) {
	req := map[string]any{"model": "svcq1", "prompt": "a fox", "duration": 5}
	for name, answer := range map[string]*sdk.ElicitResult{
		"send unticked": {Action: "accept", Content: map[string]any{"send": false}},
		"cancelled":     {Action: "cancel"},
	} {
		r := newRig(t, rigOpts{counted: true, server: Options{Consent: Consent{Above: 10}},
			elicit: func(*sdk.ElicitParams) *sdk.ElicitResult { return answer }})
		if got := r.refused(t, "create_text2video", req); !strings.Contains(got, "declined") || r.posts.Load() != 0 {
			t.Errorf("%s: %s; %d sent", name, got, r.posts.Load())
		}
	}
}

// The agent's daily cap refuses the send that would pass it, before
// anything is sent: two 38-credit sends fit a cap of 90, a third does not.
func TestTheAgentCapRefusesTheSendPastIt(t *testing.T) {
	r := newRig(t, rigOpts{cap: 90})
	req := map[string]any{"model": "svcq1", "prompt": "a fox", "duration": 5}
	var c created
	r.ok(t, "create_text2video", req, &c)
	r.ok(t, "create_text2video", req, &c)
	if got := r.refused(t, "create_text2video", req); !strings.Contains(got, "daily credit cap for agent work") {
		t.Errorf("a third send past the cap: %s", got)
	}
	if n := len(r.tasks(t)); n != 2 {
		t.Errorf("%d tasks in history, want the 2 within the cap", n)
	}
}

// A prompt's control sequences never reach the agent: get_task and
// list_tasks give it cleaned.
func TestPromptsAreCleanedForTheAgent(t *testing.T) {
	r := newRig(t, rigOpts{})
	var c created
	r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox \x1b]52;c;ZXZpbA==\x07 at dusk"}, &c)
	var got taskOut
	r.ok(t, "get_task", map[string]any{"task_id": c.TaskID}, &got)
	var list taskList
	r.ok(t, "list_tasks", map[string]any{}, &list)
	for _, p := range []string{got.Prompt, list.Tasks[0].Prompt} {
		if strings.ContainsAny(p, "\x1b\x07") || !strings.Contains(p, "a fox") {
			t.Errorf("prompt given to the agent: %q", p)
		}
	}
}

// list_tasks answers 20 tasks unless asked, at most 200, and pages through
// tasks created at the same instant without skipping or repeating one.
func TestListTasksPagesAndBounds(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	r := newRig(t, rigOpts{historyClock: func() time.Time { return at }})
	for range 21 {
		var c created
		r.ok(t, "create_text2video", map[string]any{"model": "svcq1", "prompt": "a fox"}, &c)
	}
	var list taskList
	r.ok(t, "list_tasks", map[string]any{}, &list)
	if len(list.Tasks) != 20 || !list.More {
		t.Errorf("the default page: %d tasks, more %v; want 20 and more", len(list.Tasks), list.More)
	}
	if msg := r.refused(t, "list_tasks", map[string]any{"limit": 201}); !strings.Contains(msg, "limit: give 1 to 200 tasks, got 201") {
		t.Errorf("limit 201: %s", msg)
	}
	seen := map[int64]bool{}
	cursor := ""
	for range 30 {
		var page taskList
		r.ok(t, "list_tasks", map[string]any{"limit": 4, "cursor": cursor}, &page)
		for _, tk := range page.Tasks {
			if seen[tk.LocalID] {
				t.Fatalf("#%d listed twice", tk.LocalID)
			}
			seen[tk.LocalID] = true
		}
		if !page.More {
			break
		}
		cursor = page.Cursor
	}
	if len(seen) != 21 {
		t.Errorf("paging by 4 listed %d of the 21 tasks created at one instant", len(seen))
	}
}

// A message of exactly the bound is read; one byte more is refused.
func TestStdioTakesAMessageOfExactlyTheBound(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, c := range []struct {
		max  int
		pass bool
	}{{len(msg), true}, {len(msg) - 1, false}} {
		var answered strings.Builder
		got, _ := io.ReadAll(guardStdio(strings.NewReader(msg+"\n"), &answered, c.max))
		if passed := strings.TrimSpace(string(got)) == msg; passed != c.pass || passed == (answered.Len() > 0) {
			t.Errorf("a %d-byte message with a bound of %d: passed %v, answered %q", len(msg), c.max, passed, answered.String())
		}
	}
}
