package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clapper/history"
	"clapper/track"
)

// Issue 11.8: resolve attaches an id only once the service confirms it; a
// 404 is refused with the reason, and the request stays of unknown outcome.
func TestResolveConfirmsTheIDWithTheService(t *testing.T) {
	svc := &fakeService{
		answers:  map[string][]string{"POST /ent/v2/text2video": {`{"code":502,"reason":"BadGateway","message":"upstream"}`}},
		statuses: map[string]int{"POST /ent/v2/text2video": 502},
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	data := t.TempDir()
	exec := func(args ...string) run {
		return execute("", append(args, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)...)
	}
	if r := exec("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"); r.code != 1 || !strings.Contains(r.err, "resolve 1") {
		t.Fatalf("a 502 on create: %+v", r)
	}
	r := exec("history", "resolve", "1", "t-typo")
	if r.code != 1 || !strings.Contains(r.err, "does not know task t-typo") || !strings.Contains(r.err, "TaskNotFound") || !strings.Contains(r.err, "nothing attached") {
		t.Errorf("resolve with an id the service does not know: exit %d, %q", r.code, r.err)
	}
	var line historyLine
	if r := exec("history", "--json"); json.Unmarshal([]byte(r.out), &line) != nil || line.TaskID != "" || line.State != unknownState {
		t.Errorf("after a refused resolve, history holds %+v", line)
	}
	svc.mu.Lock()
	svc.answers["GET /ent/v2/tasks/t7/creations"] = []string{`{"id":"t7","state":"processing"}`}
	svc.mu.Unlock()
	r = exec("history", "resolve", "1", "t7")
	if r.code != 0 || !strings.Contains(r.out, "request 1 is task t7 (the service says processing)") {
		t.Errorf("resolve with a confirmed id: exit %d, %q %q", r.code, r.out, r.err)
	}
	if r := exec("history", "--json"); json.Unmarshal([]byte(r.out), &line) != nil || line.TaskID != "t7" {
		t.Errorf("after resolve, history holds %+v", line)
	}
	// A request resolved already, or one history does not hold, is bad
	// input: refused, naming it, with nothing asked of the service.
	svc.mu.Lock()
	asked := len(svc.got)
	svc.mu.Unlock()
	if r := exec("history", "resolve", "1", "t8"); r.code != 2 || !strings.Contains(r.err, "request #1 is created (task t7); only requests of unknown outcome can be resolved") {
		t.Errorf("resolve of a resolved request: exit %d, %q", r.code, r.err)
	}
	if r := exec("history", "resolve", "9", "t8"); r.code != 2 || !strings.Contains(r.err, "no request #9 in history") {
		t.Errorf("resolve of a request history does not hold: exit %d, %q", r.code, r.err)
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	if len(svc.got) != asked {
		t.Errorf("refused resolves asked the service: %+v", svc.got[asked:])
	}
}

// Issue 11.8: watch says which tasks it no longer follows after repeated
// 404s, instead of trying them again each run.
func TestWatchSaysWhichTasksAreLost(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/text2video": {`{"task_id":"a1","state":"created"}`}}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	data := t.TempDir()
	exec := func(args ...string) run {
		return execute("", append(args, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)...)
	}
	if r := exec("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"); r.code != 0 {
		t.Fatal(r.err)
	}
	dbs, _ := filepath.Glob(filepath.Join(data, "live-*.db")) // this service's history
	if len(dbs) != 1 {
		t.Fatalf("histories %v", dbs)
	}
	store, err := history.Open(dbs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i >= 0; i-- { // three earlier runs, a 404 each, over the window
		if _, err := store.RecordNotFound(context.Background(), "a1", time.Now().Add(-time.Duration(i)*track.LostWindow), "TaskNotFound", 3, track.LostWindow); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	r := exec("watch")
	if !strings.Contains(r.err, "task a1 (text2video, created) is not followed: the service answered 3 reads in a row that it does not know it (TaskNotFound") ||
		!strings.Contains(r.out, "No task is in flight.") || r.code != 0 {
		t.Errorf("watch: exit %d, out %q, err %q", r.code, r.out, r.err)
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	for _, g := range svc.got {
		if g.method == "GET" {
			t.Errorf("watch read a lost task: %s", g.path)
		}
	}
}

// Issue 11.7: create --wait ends on the words for a task the service ended
// without a result (exit 1, saying so), and follows any other state it does
// not know, shown as such, instead of hanging silently.
func TestWaitOnStatesTheSpecDoesNotName(t *testing.T) {
	for _, c := range []struct {
		answers  []string
		code     int
		progress []string
		final    string
	}{
		{[]string{`{"id":"x1","state":"queueing"}`, `{"id":"x1","state":"cancelled"}`}, 1,
			[]string{": queueing", ": cancelled"}, "task x1 ended cancelled: the service will not finish it"},
		{[]string{`{"id":"x1","state":"pending"}`, `{"id":"x1","state":"pending"}`, `{"id":"x1","state":"success"}`}, 0,
			[]string{": unknown state pending", ": success"}, ""},
	} {
		svc := &fakeService{answers: map[string][]string{
			"POST /ent/v2/reference2image":   {`{"task_id":"x1","state":"created","credits":8}`},
			"GET /ent/v2/tasks/x1/creations": c.answers,
		}}
		r := runCLI(t, svc, "", "create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a cat", "--wait", "--no-download")
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d: %s", c.answers[len(c.answers)-1], r.code, c.code, r.err)
		}
		for _, want := range append(c.progress, c.final) {
			if !strings.Contains(r.err, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.err)
			}
		}
	}
}
