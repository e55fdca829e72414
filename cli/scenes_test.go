package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api/sandbox"
)

// composeLog keeps the job_ids of every compose request a sandbox got.
type composeLog struct {
	next http.Handler
	mu   sync.Mutex
	sent [][]string
}

func (c *composeLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/compose") {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			JobIDs []string `json:"job_ids"`
		}
		json.Unmarshal(body, &req)
		c.mu.Lock()
		c.sent = append(c.sent, req.JobIDs)
		c.mu.Unlock()
	}
	c.next.ServeHTTP(w, r)
}

type jobJSON struct {
	State      string `json:"state"`
	JobRecords []struct {
		Type string `json:"type"`
		Jobs []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"jobs"`
	} `json:"job_records"`
	Chosen []string `json:"chosen_job_ids"`
}

// The three commands on a fast sandbox: show a job (text and the service's
// JSON), edit a scene and wait, compose the chosen versions, wait and save.
func TestScenesCommands(t *testing.T) {
	srv, err := sandbox.New(sandbox.Config{Speed: 2000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	log := &composeLog{next: srv}
	ts := httptest.NewServer(log)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	data, saveDir := t.TempDir(), t.TempDir()
	cli := func(args ...string) run {
		return execute("", append(args, "--base-url", ts.URL, "--api-key", "k-123456789", "--data-dir", data)...)
	}
	r := cli("create", "general_one_click", "--set", "images=https://example.com/a.png",
		"--set", "prompt=a day at the sea", "--set", "duration=25", "--json")
	if r.code != 0 {
		t.Fatalf("create: exit %d: %s", r.code, r.err)
	}
	var created struct{ ID string }
	json.Unmarshal([]byte(r.out), &created)
	job := created.ID

	var rec jobJSON
	for deadline := time.Now().Add(10 * time.Second); rec.State != "success"; {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s", rec.State)
		}
		time.Sleep(20 * time.Millisecond)
		r = cli("scenes", job, "--json")
		if r.code != 0 {
			t.Fatalf("scenes --json: exit %d: %s", r.code, r.err)
		}
		rec = jobJSON{}
		if err := json.Unmarshal([]byte(r.out), &rec); err != nil {
			t.Fatalf("scenes --json: %v\n%s", err, r.out)
		}
	}
	if len(rec.JobRecords) != 4 || rec.JobRecords[0].Type != "generate_video" || rec.JobRecords[3].Type != "compose" ||
		len(rec.Chosen) != 3 || rec.Chosen[1] != rec.JobRecords[1].Jobs[0].ID {
		t.Fatalf("record %+v", rec)
	}
	scene2 := rec.JobRecords[1].Jobs[0].ID

	// Refused before sending: exit 2.
	for _, args := range [][]string{
		{"scenes", "edit", job, "--prompt", "x"},
		{"scenes", "edit", job, "--scene-job", "nope", "--prompt", "x"},
		{"scenes", "edit", job, "--scene-job", scene2, "--prompt", strings.Repeat("x", 3001)},
		{"scenes", "compose", job, "--jobs", "nope"},
	} {
		if r := cli(args...); r.code != 2 {
			t.Errorf("%v: exit %d: %s", args[:3], r.code, r.err)
		}
	}

	r = cli("scenes", "edit", job, "--scene-job", scene2, "--prompt", "a storm rolls in", "--wait")
	if r.code != 0 || !strings.HasPrefix(r.out, "scene version ") || !strings.Contains(r.out, "created as scene 2 v2; cost ") ||
		!strings.Contains(r.err, "success") {
		t.Fatalf("edit --wait: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	edited := strings.Fields(strings.TrimPrefix(r.out, "scene version "))[0]
	edited = strings.TrimSuffix(edited, ":")

	r = cli("scenes", "compose", job, "--download", "--download-dir", saveDir)
	if r.code != 0 {
		t.Fatalf("compose --download: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	want := []string{rec.Chosen[0], edited, rec.Chosen[2]}
	if len(log.sent) != 1 || !slices.Equal(log.sent[0], want) {
		t.Errorf("compose requests %v, want one of %v", log.sent, want)
	}
	files, _ := os.ReadDir(saveDir)
	if len(files) != 1 || !strings.Contains(r.out, "saved "+filepath.Join(saveDir, files[0].Name())) {
		t.Errorf("saved %v; output %s", files, r.out)
	}

	r = cli("scenes", job)
	if r.code != 0 {
		t.Fatalf("scenes: exit %d: %s", r.code, r.err)
	}
	for _, want := range []string{"scene 2", "* v2 " + edited, "a storm rolls in", "compositions", "of " + strings.Join(want, ", "), "saved " + saveDir} {
		if !strings.Contains(r.out, want) {
			t.Errorf("scenes output lacks %q:\n%s", want, r.out)
		}
	}
}
