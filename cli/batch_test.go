package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"clapper/api/sandbox"
	"clapper/history"
	"clapper/internal/textutil"
	"clapper/studio"
)

// postCounter is the sandbox served over HTTP, counting the creations it
// was sent: what a test means by "nothing sent" or "none twice".
type postCounter struct {
	h     http.Handler
	mu    sync.Mutex
	posts int
	sent  chan struct{} // one tick per creation answered
}

func (c *postCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.h.ServeHTTP(w, r)
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/ent/v2/") {
		c.mu.Lock()
		c.posts++
		c.mu.Unlock()
		select {
		case c.sent <- struct{}{}:
		default:
		}
	}
}

func (c *postCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.posts
}

// countingSandbox starts a sandbox running generation 3600 times faster
// than real time, and returns the flags that point clapper at it.
func countingSandbox(t *testing.T) (*postCounter, []string) {
	t.Helper()
	sb, err := sandbox.New(sandbox.Config{Speed: 3600, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	c := &postCounter{h: sb, sent: make(chan struct{}, 64)}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, []string{"--base-url", srv.URL, "--api-key", "k", "--data-dir", t.TempDir()}
}

// batchLines writes a JSON Lines batch of n text2video requests, line
// broken (when not 0) asking for a duration no model takes.
func batchLines(t *testing.T, n, broken int) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		duration := 5
		if i == broken {
			duration = 99
		}
		fmt.Fprintf(&b, `{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "product %d on a table", "duration": %d}}`+"\n", i, duration)
	}
	p := filepath.Join(t.TempDir(), "batch.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A 12-line batch with one broken line is refused whole: the line is
// named with its field, the exit status is 2, and the service got nothing.
func TestBatchWithABrokenLineIsRefusedWhole(t *testing.T) {
	svc, flags := countingSandbox(t)
	r := execute("", append([]string{"batch", batchLines(t, 12, 7)}, flags...)...)
	if r.code != 2 || !strings.Contains(r.err, "line 7: duration") || strings.Contains(r.err, "line 6") {
		t.Fatalf("exit %d, want 2 naming line 7's duration only:\n%s", r.code, r.err)
	}
	if n := svc.count(); n != 0 {
		t.Fatalf("%d requests were sent; a refused batch sends none", n)
	}
	// Every kind of broken line is listed, each with its number.
	p := filepath.Join(t.TempDir(), "mixed.jsonl")
	os.WriteFile(p, []byte(`{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "ok"}}
{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "ok"}

{"operation": "text2vidoe", "request": {"model": "svcq3-turbo", "prompt": "ok"}}
{"operation": "text2video", "reqest": {"model": "svcq3-turbo", "prompt": "ok"}}
{"operation": "text2video", "request": {"model": "svcq9", "prompt": "ok"}}
`), 0o600)
	r = execute("", append([]string{"batch", p}, flags...)...)
	for _, want := range []string{"4 problems", "line 2: want", "line 4: operation", "line 5: want", "line 6: model"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("missing %q:\n%s", want, r.err)
		}
	}
	if r.code != 2 || strings.Contains(r.err, "line 1") || svc.count() != 0 {
		t.Fatalf("exit %d, %d sent:\n%s", r.code, svc.count(), r.err)
	}
}

// CSV lines are typed as --set types them, and each broken cell is named.
func TestBatchCSVTypesValuesAndNamesBrokenCells(t *testing.T) {
	svc, flags := countingSandbox(t)
	p := filepath.Join(t.TempDir(), "products.csv")
	os.WriteFile(p, []byte("operation,model,prompt,duration\n"+
		"text2video,svcq3-turbo,a red mug,5\n"+
		"text2video,svcq3-turbo,a blue mug,five\n"+
		"text2vidoe,svcq3-turbo,a green mug,5\n"), 0o600)
	r := execute("", append([]string{"batch", p}, flags...)...)
	if r.code != 2 || !strings.Contains(r.err, "line 3: duration") || !strings.Contains(r.err, "line 4: operation") || strings.Contains(r.err, "line 2") {
		t.Fatalf("exit %d:\n%s", r.code, r.err)
	}
	os.WriteFile(p, []byte("operation,model,prompt,duration\ntext2video,svcq3-turbo,a red mug,5\ntext2video,svcq3-turbo,a blue mug,8\n"), 0o600)
	r = execute("", append([]string{"batch", p}, flags...)...)
	if r.code != 0 || !strings.Contains(r.out, "batch: 2 done, 0 failed") || svc.count() != 2 {
		t.Fatalf("exit %d, %d sent:\n%s%s", r.code, svc.count(), r.out, r.err)
	}
}

// --max-credits refuses a batch whose price passes it before anything is
// sent.
// (The embedded sandbox prices by its table; its tasks are read from its
// state file afterwards.)
func TestBatchMaxCreditsRefusesUpFront(t *testing.T) {
	data := t.TempDir()
	file := batchLines(t, 12, 0)
	r := execute("", "batch", file, "--max-credits", "30", "--data-dir", data, "--sandbox-speed", "3600")
	if r.code != 2 || !strings.Contains(r.err, "passes --max-credits 30") {
		t.Fatalf("exit %d:\n%s", r.code, r.err)
	}
	if n := embeddedTasks(t, data); n != 0 {
		t.Fatalf("%d requests were sent past --max-credits", n)
	}
	r = execute("", "batch", file, "--max-credits", "100000", "--data-dir", data, "--sandbox-speed", "3600")
	if r.code != 0 || embeddedTasks(t, data) != 12 {
		t.Fatalf("exit %d, %d sent:\n%s%s", r.code, embeddedTasks(t, data), r.out, r.err)
	}
}

// embeddedTasks counts the tasks the embedded sandbox of a data dir holds:
// every creation it accepted.
func embeddedTasks(t *testing.T, data string) int {
	t.Helper()
	cfg := studio.Config{DataDir: data}
	sb, err := sandbox.New(sandbox.Config{StatePath: cfg.SandboxStatePath()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	srv := httptest.NewServer(sb)
	defer srv.Close()
	return len(sandboxTaskIDs(t, srv.URL))
}

// A batch killed with -9 part way and run again sends each of its 12
// lines exactly once, and ends with all of them followed.
func TestBatchKilledAndRunAgainSendsNoneTwice(t *testing.T) {
	svc, flags := countingSandbox(t)
	file := batchLines(t, 12, 0)
	argv, _ := json.Marshal(append([]string{"batch", file}, flags...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(argv))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case <-svc.sent:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("the batch sent fewer than 3 requests:\n%s", out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	first := svc.count()
	if first >= 12 {
		t.Fatalf("the kill came after all %d lines were sent: nothing left to resume", first)
	}
	r := execute("", append([]string{"batch", file}, flags...)...)
	if n := svc.count(); n != 12 {
		t.Fatalf("%d sent before the kill, %d in all; want each of 12 lines once:\n%s%s", first, n, r.out, r.err)
	}
	if r.code != 0 || !strings.Contains(r.err, "batch sent before") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.out, r.err)
	}
	var done, unknown int
	fmt.Sscanf(r.out, "batch: %d done", &done)
	if strings.Contains(r.out, "unknown outcome") {
		fmt.Sscanf(r.out[strings.Index(r.out, "failed, ")+8:], "%d of unknown", &unknown)
	}
	if done+unknown != 12 {
		t.Fatalf("summary %q: want the 12 lines done (or of unknown outcome when killed mid-POST)", r.out)
	}
	// A third run has nothing to send.
	r = execute("", append([]string{"batch", file, "--json"}, flags...)...)
	if svc.count() != 12 || r.code != 0 {
		t.Fatalf("a finished batch run again sent %d in all, exit %d:\n%s", svc.count(), r.code, r.err)
	}
}

// Never more than five of a set at the service at once: the sandbox's
// own count of tasks in flight is read at every creation. Its clock moves
// (an hour, finishing what is in flight) only on a read while five are in
// flight or once all are created, so no task ends before the runner could
// fill its five, however loaded the machine.
func TestBatchKeepsFiveAtTheService(t *testing.T) {
	const lines = 12
	clk := sandbox.NewFakeClock(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC))
	sb, err := sandbox.New(sandbox.Config{Clock: clk, Seed: 3, MaxConcurrent: 100})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	inflight, most, created := map[string]bool{}, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Method == http.MethodGet && (len(inflight) >= 5 || created == lines) {
			clk.Advance(time.Hour)
		}
		mu.Unlock()
		rec := httptest.NewRecorder()
		sb.ServeHTTP(rec, r)
		var task struct {
			TaskID string `json:"task_id"`
			ID     string `json:"id"`
			State  string `json:"state"`
		}
		json.Unmarshal(rec.Body.Bytes(), &task)
		mu.Lock()
		id := task.TaskID + task.ID
		switch {
		case r.Method == http.MethodPost:
			inflight[id] = true
			created++
		case task.State == "success" || task.State == "failed":
			delete(inflight, id)
		}
		most = max(most, len(inflight))
		mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var o, e bytes.Buffer
	root := NewRoot(&App{Out: &o, Err: &e, In: strings.NewReader(""), watcher: fastWatcher})
	root.SetArgs([]string{"batch", batchLines(t, lines, 0), "--base-url", srv.URL, "--api-key", "k", "--data-dir", t.TempDir()})
	if err := root.ExecuteContext(ctx); err != nil {
		// Fewer than five in flight stops the sandbox's clock: the batch hangs.
		t.Fatalf("%v (at most %d in flight)\n%s", err, most, e.String())
	}
	if most > 5 || most < 5 {
		t.Fatalf("at most %d of the batch were at the service at once; want 5:\n%s", most, e.String())
	}
	if !strings.Contains(e.String(), "the rest wait here") || !strings.Contains(o.String(), "batch: 12 done") {
		t.Fatalf("output:\n%s%s", o.String(), e.String())
	}
}

// A line past the service's 20 MB body limit is refused with the rest,
// unless its images will be uploaded instead.
func TestBatchLinePastTheBodyLimit(t *testing.T) {
	uri := "data:image/png;base64," + strings.Repeat("A", 21<<20)
	data := []byte(jsonLine + jsonLine + `{"operation": "img2video", "request": {"model": "svcq1", "prompt": "p", "images": ["` + uri + `"]}}` + "\n")
	b := parseBatch("b.jsonl", data, studio.Config{Uploads: studio.UploadNever})
	if len(b.problems) == 0 || !strings.HasPrefix(b.problems[len(b.problems)-1], "line 3: request body is 21.0 MB") {
		t.Fatalf("problems %q", b.problems)
	}
	b = parseBatch("b.jsonl", data, studio.Config{Uploads: studio.UploadAuto})
	for _, p := range b.problems {
		if strings.Contains(p, "request body is") {
			t.Fatalf("an image to be uploaded is not past the limit: %q", b.problems)
		}
	}
}

// Fixing a batch file after a run (a typo on one line, a line added at the
// top, so every other line moves) sends only the lines that changed or
// never ran, and says so first; the lines that ran before are the new
// run's too (its summary counts them).
func TestBatchEditedAfterARunSendsOnlyWhatChanged(t *testing.T) {
	svc, flags := countingSandbox(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "products.jsonl")
	line := func(prompt string) string {
		return `{"operation": "text2video", "request": {"model": "svcq3-turbo", "prompt": "` + prompt + `", "duration": 5}}` + "\n"
	}
	os.WriteFile(file, []byte(line("a red mug")+line("a bleu mug")+line("a green mug")), 0o600)
	if r := execute("", append([]string{"batch", file}, flags...)...); r.code != 0 || svc.count() != 3 {
		t.Fatalf("first run: exit %d, %d sent:\n%s", r.code, svc.count(), r.err)
	}
	os.WriteFile(file, []byte(line("a white mug")+line("a red mug")+line("a blue mug")+line("a green mug")), 0o600)
	r := execute("", append([]string{"batch", file}, flags...)...)
	if r.code != 0 || svc.count() != 5 {
		t.Fatalf("the edited file sent %d more, want the fixed line and the new one (2):\n%s%s", svc.count()-3, r.out, r.err)
	}
	if !strings.Contains(r.err, "2 lines ran before, unchanged (line 2 as #1, line 4 as #3): not sent again") {
		t.Errorf("the run does not say which lines ran before:\n%s", r.err)
	}
	if !strings.Contains(r.out, "batch: 4 done, 0 failed") {
		t.Errorf("the summary leaves out the lines that ran before:\n%s", r.out)
	}
	// The same edit run again sends nothing more.
	if r := execute("", append([]string{"batch", file}, flags...)...); r.code != 0 || svc.count() != 5 {
		t.Fatalf("run again: exit %d, %d sent in all:\n%s", r.code, svc.count(), r.err)
	}
}

// Variations are named as versions, each with its row of clapper history
// (#N), and the summary names the set they were kept as.
func TestVariationsSayTheirVersionsAndSet(t *testing.T) {
	_, flags := countingSandbox(t)
	r := execute("", append([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a fox", "--variations", "2"}, flags...)...)
	if r.code != 0 || !strings.Contains(r.err, "version 1 (seed=") || !strings.Contains(r.err, "version 2 (seed=") ||
		!strings.Contains(r.err, "(#1) created") || strings.Contains(r.err, "line 1") {
		t.Fatalf("the versions are not named so:\n%s", r.err)
	}
	if !strings.Contains(r.out, "; set 1 in clapper history") {
		t.Fatalf("the summary does not name the set:\n%s", r.out)
	}
}

// A batch that sends nothing (checked with --dry-run, refused by a cap or
// --max-credits) leaves no set in history; one that ran keeps its set.
func TestABatchThatSendsNothingLeavesNoSet(t *testing.T) {
	data := t.TempDir()
	file := batchLines(t, 3, 0)
	sets := func() int {
		t.Helper()
		store, err := history.Open(studio.Config{DataDir: data}.HistoryPath())
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		all, err := store.Sets(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(all)
	}
	for _, args := range [][]string{{"--dry-run"}, {"--daily-cap", "1"}, {"--max-credits", "1"}} {
		r := execute("", append([]string{"batch", file, "--data-dir", data, "--sandbox-speed", "3600"}, args...)...)
		if n := sets(); n != 0 || embeddedTasks(t, data) != 0 {
			t.Fatalf("%v: exit %d, %d sets left, %d sent:\n%s", args, r.code, n, embeddedTasks(t, data), r.err)
		}
	}
	if r := execute("", "batch", file, "--data-dir", data, "--sandbox-speed", "3600"); r.code != 0 || sets() != 1 {
		t.Fatalf("a batch that ran: exit %d, %d sets:\n%s", r.code, sets(), r.err)
	}
}

// --retry-failed sends the lines whose task failed again, once: a second
// --retry-failed leaves a line that failed twice as it is.
func TestBatchRetryFailedSendsThemOnce(t *testing.T) {
	sb, err := sandbox.New(sandbox.Config{Speed: 3600, Seed: 5, FailRate: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	svc := &postCounter{h: sb, sent: make(chan struct{}, 64)}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	flags := []string{"--base-url", srv.URL, "--api-key", "k", "--data-dir", t.TempDir()}
	file := batchLines(t, 8, 0)
	r := execute("", append([]string{"batch", file, "--no-download"}, flags...)...)
	var done, failed int
	fmt.Sscanf(r.out, "batch: %d done, %d failed", &done, &failed)
	if failed == 0 || done+failed != 8 || svc.count() != 8 {
		t.Fatalf("first run: %d done, %d failed, %d sent:\n%s%s", done, failed, svc.count(), r.out, r.err)
	}
	r = execute("", append([]string{"batch", file, "--no-download", "--retry-failed"}, flags...)...)
	if svc.count() != 8+failed || !strings.Contains(r.err, fmt.Sprintf("%s failed: sent again (once)", textutil.Plural(failed, "line"))) {
		t.Fatalf("retry: %d sent in all, want %d:\n%s", svc.count(), 8+failed, r.err)
	}
	before := svc.count()
	execute("", append([]string{"batch", file, "--no-download", "--retry-failed"}, flags...)...)
	if svc.count() != before {
		t.Fatalf("a second --retry-failed sent %d more; each line is sent again once", svc.count()-before)
	}
}
