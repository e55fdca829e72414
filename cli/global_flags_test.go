package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clapper/api/sandbox"
	"clapper/studio"
)

// Each flag shared by every command, and its environment variable, is
// observed by its effect: where history is, which service is called with
// which key, how long a request may take, how fast the embedded sandbox
// runs, and where callbacks are asked to go.

func TestDataDirFromFlagAndEnvironment(t *testing.T) {
	byEnv, byFlag := t.TempDir(), t.TempDir()
	seedHistory(t, byEnv, flagRows[:2])
	seedHistory(t, byFlag, flagRows[:1])
	t.Setenv(studio.EnvDataDir, byEnv)
	r := execute("", "history", "--json")
	if r.code != 0 || strings.Count(r.out, "\n") != 2 {
		t.Errorf("%s: history listed %q (exit %d), want the 2 tasks kept there", studio.EnvDataDir, r.out, r.code)
	}
	r = execute("", "history", "--json", "--data-dir", byFlag)
	if r.code != 0 || strings.Count(r.out, "\n") != 1 {
		t.Errorf("--data-dir lost to %s: listed %q", studio.EnvDataDir, r.out)
	}
}

func TestServiceAndKeyFromEnvironment(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"GET /ent/v2/tasks/811000000000000042/creations": {`{"id":"811000000000000042","state":"processing","credits":3}`}}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	t.Setenv(studio.EnvBaseURL, srv.URL)
	t.Setenv(studio.EnvAPIKey, "env-key-0123456789")
	r := execute("", "get", "811000000000000042", "--data-dir", t.TempDir())
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if len(svc.got) != 1 || svc.got[0].auth != "Token env-key-0123456789" {
		t.Errorf("the service got %+v, want one read with the environment's key", svc.got)
	}
	// The flags win over the environment.
	r = execute("", "get", "811000000000000042", "--data-dir", t.TempDir(), "--api-key", "flag-key-0123456789", "--base-url", srv.URL)
	if r.code != 0 || len(svc.got) != 2 || svc.got[1].auth != "Token flag-key-0123456789" {
		t.Errorf("--api-key lost to %s: %+v", studio.EnvAPIKey, svc.got)
	}
}

// --timeout bounds each request: a service that does not answer fails the
// command after the timeout, not after the default minute.
func TestTimeoutBoundsEachRequest(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second) // the test's own bound
	defer cancel()
	// A creation is sent once (reads would be retried), so one timeout ends it.
	r := executeCtx(ctx, "create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p",
		"--data-dir", t.TempDir(), "--api-key", "k-0123456789", "--base-url", srv.URL, "--timeout", "1s")
	if took := time.Since(start); r.code == 0 || took > 5*time.Second {
		t.Errorf("--timeout 1s against a silent service: exit %d after %v: %s", r.code, took, r.err)
	}
	if r := execute("", "get", "1", "--data-dir", t.TempDir(), "--timeout", "10ms"); r.code != 2 || !strings.Contains(r.err, "timeout") {
		t.Errorf("--timeout 10ms: exit %d, %q; want a usage error naming the timeout", r.code, r.err)
	}
}

// --sandbox-speed and CLAPPER_SANDBOX_SPEED make the embedded sandbox's
// generation pass faster: create --wait of an image ends within seconds
// at 3600, where at real time it takes far longer than the test allows.
func TestSandboxSpeedFromFlagAndEnvironment(t *testing.T) {
	waitFor := func(extra ...string) run {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
		defer cancel()
		return executeCtx(ctx, append([]string{"create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a cat",
			"--wait", "--no-download", "--data-dir", t.TempDir()}, extra...)...)
	}
	if r := waitFor("--sandbox-speed", "3600"); r.code != 0 || !strings.Contains(r.out, "success") {
		t.Errorf("--sandbox-speed 3600: exit %d, %q %q", r.code, r.out, r.err)
	}
	t.Setenv(studio.EnvSandboxSpeed, "3600")
	if r := waitFor(); r.code != 0 || !strings.Contains(r.out, "success") {
		t.Errorf("%s=3600: exit %d, %q %q", studio.EnvSandboxSpeed, r.code, r.out, r.err)
	}
	t.Setenv(studio.EnvSandboxSpeed, "")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if r := executeCtx(ctx, "create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a cat",
		"--wait", "--no-download", "--data-dir", t.TempDir()); strings.Contains(r.out, "success") {
		t.Errorf("at the default real-time speed an image finished within 1.5 s: %q", r.out)
	}
}

// --callback-listen and --callback-url together ask the service to call
// back at the public URL when the command stays to follow the task
// (--wait); a create that does not stay asks for no callback nobody takes.
func TestCallbackFlagsReachTheRequest(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{
		"POST /ent/v2/text2video":         {`{"task_id":"cb1","state":"created","credits":1}`},
		"GET /ent/v2/tasks/cb1/creations": {`{"id":"cb1","state":"success","credits":1,"creations":[]}`},
	}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	create := func(extra ...string) run {
		return execute("", append([]string{"create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p", "--data-dir", t.TempDir(),
			"--base-url", srv.URL, "--api-key", "k-0123456789", "--callback-url", "https://hooks.example.com/clapper"}, extra...)...)
	}
	if r := create("--wait", "--no-download", "--callback-listen", freeLoopback(t)); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if len(svc.got) == 0 || svc.got[0].body["callback_url"] != "https://hooks.example.com/clapper" {
		t.Errorf("create --wait carried %+v, want callback_url https://hooks.example.com/clapper", svc.got)
	}
	n := len(svc.got)
	if r := create("--callback-listen", freeLoopback(t)); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if len(svc.got) != n+1 || svc.got[n].body["callback_url"] != nil {
		t.Errorf("create without --wait asked for a callback: %+v", svc.got[n:])
	}
	if r := create("--wait"); r.code != 2 || !strings.Contains(r.err, "--callback-listen") {
		t.Errorf("--callback-url alone: exit %d, %q", r.code, r.err)
	}
}

func freeLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// sandboxCmd runs `clapper sandbox` with args on a free address until the
// test ends, and returns its base URL once it answers.
func sandboxCmd(t *testing.T, args ...string) string {
	t.Helper()
	return sandboxIn(t, t.TempDir(), args...)
}

// sandboxIn is sandboxCmd on a given data directory.
func sandboxIn(t *testing.T, data string, args ...string) string {
	t.Helper()
	addr := freeLoopback(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		root := NewRoot(&App{Out: io.Discard, Err: io.Discard, In: strings.NewReader("")})
		root.SetArgs(append([]string{"sandbox", "--addr", addr, "--data-dir", data}, args...))
		root.ExecuteContext(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	base := "http://" + addr
	// A hang guard only: a -race build on a loaded machine may take seconds to listen.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return base
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("clapper sandbox did not start")
	return ""
}

func sandboxDo(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Token "+sandbox.EmbeddedToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

const sandboxImage = `{"model":"svcq2","prompt":"a cat"}`

// Every flag of clapper sandbox changes what the served service does.
func TestSandboxCommandFlags(t *testing.T) {
	t.Run("rate-5xx", func(t *testing.T) {
		base := sandboxCmd(t, "--rate-5xx", "1")
		if code, _ := sandboxDo(t, http.MethodGet, base+"/ent/v2/tasks/1/creations", ""); code != http.StatusInternalServerError {
			t.Errorf("--rate-5xx 1: a read answered %d", code)
		}
	})
	t.Run("rate-429", func(t *testing.T) {
		base := sandboxCmd(t, "--rate-429", "1")
		if code, _ := sandboxDo(t, http.MethodGet, base+"/ent/v2/tasks/1/creations", ""); code != http.StatusTooManyRequests {
			t.Errorf("--rate-429 1: a read answered %d", code)
		}
	})
	t.Run("seed", func(t *testing.T) {
		ids := map[string]bool{}
		for range 2 {
			base := sandboxCmd(t, "--seed", "4242")
			code, m := sandboxDo(t, http.MethodPost, base+"/ent/v2/reference2image", sandboxImage)
			if code != http.StatusOK {
				t.Fatalf("create answered %d %v", code, m)
			}
			ids[fmt.Sprint(m["task_id"])] = true
		}
		if len(ids) != 1 {
			t.Errorf("two sandboxes of --seed 4242 gave the first task the ids %v", ids)
		}
	})
	t.Run("fail-rate and speed", func(t *testing.T) {
		base := sandboxCmd(t, "--fail-rate", "1", "--speed", "3600")
		_, m := sandboxDo(t, http.MethodPost, base+"/ent/v2/reference2image", sandboxImage)
		id := fmt.Sprint(m["task_id"])
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			_, r := sandboxDo(t, http.MethodGet, base+"/ent/v2/tasks/"+id+"/creations", "")
			switch r["state"] {
			case "failed":
				return
			case "success":
				t.Fatal("--fail-rate 1: a task succeeded")
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Error("--speed 3600: the task did not end within 30 s")
	})
	t.Run("state", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.json")
		base := sandboxCmd(t, "--state", path)
		if code, _ := sandboxDo(t, http.MethodPost, base+"/ent/v2/reference2image", sandboxImage); code != http.StatusOK {
			t.Fatal(code)
		}
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if st, err := os.Stat(path); err == nil && st.Size() > 0 {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("--state %s: no state file written", path)
	})
	t.Run("slow-rate and slow-delay", func(t *testing.T) {
		base := sandboxCmd(t, "--slow-rate", "1", "--slow-delay", "300ms")
		start := time.Now()
		sandboxDo(t, http.MethodGet, base+"/ent/v2/tasks/1/creations", "")
		// The delay is a floor; the ceiling only catches a delay applied
		// many times over, with room for a loaded -race run.
		if took := time.Since(start); took < 300*time.Millisecond || took > 10*time.Second {
			t.Errorf("--slow-delay 300ms: a read took %v", took)
		}
	})
}

// --data-dir names where clapper sandbox keeps its state (its sandbox.json),
// so a task it made is still known after a restart on the same folder.
func TestSandboxKeepsItsStateInTheDataDir(t *testing.T) {
	data := t.TempDir()
	base := sandboxIn(t, data)
	code, task := sandboxDo(t, http.MethodPost, base+"/ent/v2/reference2image", sandboxImage)
	if code != 200 || task["task_id"] == nil {
		t.Fatalf("create: %d %v", code, task)
	}
	if _, err := os.Stat(filepath.Join(data, "sandbox.json")); err != nil {
		t.Fatalf("no state in the data dir: %v", err)
	}
	again := sandboxIn(t, data)
	if code, got := sandboxDo(t, http.MethodGet, again+"/ent/v2/tasks/"+fmt.Sprint(task["task_id"])+"/creations", ""); code != 200 || got["id"] != task["task_id"] {
		t.Fatalf("a second sandbox on the folder does not know the task: %d %v", code, got)
	}
}
