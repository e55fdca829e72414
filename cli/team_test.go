package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clapper/api/sandbox"
	"clapper/internal/pgtest"
	"clapper/studio"
)

// Two machines (two data directories) on one service and one team
// database: a task one of them creates is in the other's history, and
// --history-url "" takes the machine back to its own file.
func TestTeamHistoryIsSharedAcrossMachines(t *testing.T) {
	url, base := teamRig(t)
	machineA, machineB := t.TempDir(), t.TempDir()
	on := func(data string, args ...string) run {
		return execute("", append(args, "--base-url", base, "--api-key", "k-team", "--data-dir", data)...)
	}
	if r := on(machineA, "create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=a fox at dawn", "--history-url", url); r.code != 0 {
		t.Fatalf("create on A: %+v", r)
	}
	r := on(machineB, "history", "--json", "--history-url", url)
	if r.code != 0 {
		t.Fatalf("history on B: %+v", r)
	}
	type row struct {
		Prompt  string `json:"prompt"`
		TaskID  string `json:"task_id"`
		SentBy  string `json:"sent_by"`
		Account string `json:"account"`
	}
	var rows []row
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var one row
		if err := json.Unmarshal([]byte(line), &one); err != nil {
			t.Fatalf("history --json: %v\n%s", err, r.out)
		}
		rows = append(rows, one)
	}
	if len(rows) != 1 || rows[0].Prompt != "a fox at dawn" || rows[0].TaskID == "" || rows[0].SentBy != (studio.Config{DataDir: machineA}).Machine() ||
		!strings.HasPrefix(rows[0].Account, "key:") || strings.Contains(rows[0].Account, "k-team") {
		t.Fatalf("B's history of the team: %+v", rows)
	}
	// The plain list names the user who sent each task.
	r = on(machineB, "history", "--history-url", url)
	header, first, _ := strings.Cut(r.out, "\n")
	if r.code != 0 || !strings.Contains(header, "  BY  ") || !strings.Contains(first, " tester ") {
		t.Errorf("B's plain list of the team:\n%s", r.out)
	}
	t.Setenv("CLAPPER_HISTORY_URL", url)
	if r := on(machineB, "history", "--json", "--history-url", ""); r.code != 0 || strings.Contains(r.out, "a fox") {
		t.Errorf(`--history-url "" must read B's own file, not the team's: %+v`, r)
	}
}

// A team database that cannot be reached is named, without its password,
// and nothing starts.
func TestTeamHistoryUnreachableIsNamed(t *testing.T) {
	r := runCLI(t, nil, "", "history", "--history-url", "postgres://ann:s3cret@127.0.0.1:1/studio")
	if r.code == 0 || !strings.Contains(r.err, "postgres://ann@127.0.0.1:1/studio") || !strings.Contains(r.err, "cannot reach the server") || strings.Contains(r.err, "s3cret") {
		t.Errorf("%+v", r)
	}
	r = runCLI(t, nil, "", "history", "--history-url", "mysql://ann:s3cret@db/studio")
	if r.code != 2 || !strings.Contains(r.err, "not a PostgreSQL URL") || strings.Contains(r.err, "s3cret") {
		t.Errorf("%+v", r)
	}
}

// A teammate's watch follows a task to its end but leaves its results to
// the copy that sent it, which saves them at its next start: the task
// ended while it was closed.
func TestTeamWatchSavesOnlyThisCopysResults(t *testing.T) {
	url, base := teamRig(t)
	machineA, machineB := t.TempDir(), t.TempDir()
	on := func(data string, args ...string) run {
		return execute("", append(args, "--base-url", base, "--api-key", "k-team", "--data-dir", data,
			"--history-url", url)...)
	}
	if r := on(machineA, "create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a kite"); r.code != 0 {
		t.Fatalf("create on A: %+v", r)
	}
	dirA, dirB := filepath.Join(machineA, "saved"), filepath.Join(machineB, "saved")
	r := on(machineB, "watch", "--download-dir", dirB)
	if r.code != 0 || !strings.Contains(r.out, ": success") ||
		!strings.Contains(r.err, "sent by "+(studio.Config{DataDir: machineA}).Machine()+": saved by that copy of clapper, not here") {
		t.Fatalf("B's watch of A's task: %+v", r)
	}
	if files, _ := os.ReadDir(dirB); len(files) != 0 {
		t.Errorf("B saved A's result: %v", files)
	}
	r = on(machineA, "watch", "--download-dir", dirA)
	if r.code != 0 || !strings.Contains(r.out, "saving the results of 1 task(s) sent from here that ended while clapper was closed") ||
		!strings.Contains(r.err, "saved "+dirA) {
		t.Fatalf("A's next watch: %+v", r)
	}
	if files, _ := os.ReadDir(dirA); len(files) != 1 {
		t.Errorf("A saved %v", files)
	}
	if r := on(machineA, "watch", "--download-dir", dirA); r.code != 0 || strings.Contains(r.out, "saving the results") {
		t.Errorf("A's watch after saving: %+v", r)
	}
}

// A copy that saw its task end and left the results unsaved by choice
// (create --wait --no-download) does not save them at its next start: only
// what ended while it was closed is caught up.
func TestTeamCopyDoesNotCatchUpWhatItLeftUnsaved(t *testing.T) {
	url, base := teamRig(t)
	data := t.TempDir()
	dir := filepath.Join(data, "saved")
	on := func(args ...string) run {
		return execute("", append(args, "--base-url", base, "--api-key", "k-team", "--data-dir", data,
			"--history-url", url, "--download-dir", dir)...)
	}
	if r := on("create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a kite", "--wait", "--no-download"); r.code != 0 {
		t.Fatalf("create --wait --no-download: %+v", r)
	}
	if r := on("watch"); r.code != 0 || strings.Contains(r.out, "saving the results") {
		t.Errorf("the next watch: %+v", r)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("saved what --no-download left: %v", files)
	}
}

// teamRig is a team database and a simulated service, fast, shared by the
// copies of clapper a test runs: their history URL and base URL.
func teamRig(t *testing.T) (url, base string) {
	t.Helper()
	url = pgtest.Get(t).Database(t, "", nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	base, _, stop, err := sandbox.Listen(ctx, "", sandbox.Config{Speed: 200, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	return url, base
}
