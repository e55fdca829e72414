package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"clapper/api/sandbox"
	"clapper/internal/pgtest"
	"clapper/internal/testenv"
)

// childEnv makes the test binary act as clapper itself, so the crash test
// can kill a real process without building another binary.
const childEnv = "CLAPPER_TEST_AS_CLI"

func TestMain(m *testing.M) {
	// A child runs in the isolated environment its parent made.
	if args := os.Getenv(childEnv); args != "" {
		var argv []string
		json.Unmarshal([]byte(args), &argv)
		app := &App{Out: os.Stdout, Err: os.Stderr, In: os.Stdin}
		root := NewRoot(app)
		root.SetArgs(argv)
		if err := root.Execute(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(ExitCode(err))
		}
		os.Exit(0)
	}
	// The caller's settings, key and folders stay out of every test: a key
	// saved by the TUI must not turn these sandbox tests live, and nothing
	// of the caller's is removed at the end.
	cleanup := testenv.Isolate()
	code := m.Run()
	pgtest.Stop()
	cleanup()
	os.Exit(code)
}

// A kill -9 of `clapper create --wait` at random moments, repeated, loses no
// task the service created: each is in history by id, or history holds an
// intent of unknown outcome that may be it.
func TestKillDuringCreateWaitLosesNoTask(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, _, stop, err := sandbox.Listen(ctx, "", sandbox.Config{Speed: 200, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	data := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	const runs = 16
	for i := 0; i < runs; i++ {
		argv, _ := json.Marshal([]string{"create", "text2video", "--set", "model=svcq3-turbo", "--set", fmt.Sprintf("prompt=fox %d", i),
			"--wait", "--no-download", "--base-url", base, "--api-key", "k", "--data-dir", data})
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+string(argv))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a random moment: before the intent, around the POST, or
		// while waiting.
		pause := time.Duration(rng.IntN(400)) * time.Millisecond
		if i%4 == 3 {
			pause += 1500 * time.Millisecond // some runs surely get past creating, on a loaded machine too
		}
		time.Sleep(pause)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	created := sandboxTaskIDs(t, base)
	r := execute("", "history", "--json", "--limit", "0", "--base-url", base, "--api-key", "k", "--data-dir", data)
	if r.code != 0 {
		t.Fatalf("history: %s", r.err)
	}
	kept := map[string]bool{}
	unknown := 0
	sc := bufio.NewScanner(strings.NewReader(r.out))
	for sc.Scan() {
		var l historyLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.State == unknownState {
			unknown++
		}
		kept[l.TaskID] = true
	}
	missing := 0
	for _, id := range created {
		if !kept[id] {
			missing++
		}
	}
	t.Logf("%d runs: the service created %d tasks; history kept %d by id and %d of unknown outcome", runs, len(created), len(created)-missing, unknown)
	if missing > unknown {
		t.Errorf("%d created task(s) are neither in history nor covered by an unknown intent (%d)", missing, unknown)
	}
	if len(created) == 0 {
		t.Error("no run got as far as creating a task: the kills came too early to test anything")
	}
}

func sandboxTaskIDs(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "/_sandbox/tasks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []struct {
		ID        string `json:"id"`
		Operation string `json:"operation"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	return ids
}
