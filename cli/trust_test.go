package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/history"
	"clapper/record"
	"clapper/track"
)

// Issue 19.13: a task id holding a newline would forge a row of output;
// such an id is refused where it enters, from the service or the user.
func TestTaskIDWithNewlineForgesNoRow(t *testing.T) {
	forged := `h1\ntask h9: success, 0 credits`
	svc := &fakeService{answers: map[string][]string{
		"POST /ent/v2/text2video":        {`{"task_id":"` + forged + `","state":"created"}`},
		"GET /ent/v2/tasks/h1/creations": {`{"id":"` + forged + `","state":"processing","err_code":"","credits":1,"creations":null}`},
	}}
	for _, args := range [][]string{
		{"create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"},
		{"get", "h1"},
		{"get", "h1\ntask h9: success"},
	} {
		r := runCLI(t, svc, "", args...)
		for _, line := range strings.Split(r.out+r.err, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "task h9") {
				t.Errorf("%q printed a forged row:\n%s%s", args, r.out, r.err)
			}
		}
		if r.code == 0 {
			t.Errorf("%q: exit 0 with an id no service gives:\n%s%s", args, r.out, r.err)
		}
	}
}

// Issue 19.18: a request file saved with a UTF-8 byte-order mark (as some
// Windows editors do) is read like any other.
func TestRequestFileWithByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "req.json")
	if err := os.WriteFile(path, []byte("\ufeff"+`{"model":"svcq3-pro","prompt":"a fox"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range []run{
		runCLI(t, nil, "", "create", "text2video", "-f", path, "--dry-run"),
		runCLI(t, nil, "\ufeff"+`{"model":"svcq3-pro","prompt":"a fox"}`, "create", "text2video", "-f", "-", "--dry-run"),
	} {
		if r.code != 0 || !strings.Contains(r.out, "a fox") {
			t.Errorf("exit %d:\n%s%s", r.code, r.out, r.err)
		}
	}
}

// Issue 19.14: devices and other files that are not regular files are
// refused by name before a byte is read (stat says 0 bytes for /dev/zero,
// which would otherwise be read until memory runs out).
func TestDeviceInputsAreRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	for _, args := range [][]string{
		{"create", "text2video", "-f", "/dev/zero", "--dry-run"},
		{"create", "img2video", "--set", "model=svcq2", "--set", "images=/dev/zero", "--set", "prompt=p", "--dry-run"},
	} {
		r := runCLI(t, nil, "", args...)
		if r.code != 2 || !strings.Contains(r.err, "/dev/zero") || !strings.Contains(r.err, "not a regular file") {
			t.Errorf("%q: exit %d:\n%s%s", args, r.code, r.out, r.err)
		}
	}
}

// Issue 19.14: standard input is read with a cap: an endless stream is cut
// and refused, not read until memory runs out.
func TestEndlessStandardInputIsCapped(t *testing.T) {
	_, err := readRequest(context.Background(), "-", endless{})
	if err == nil || !strings.Contains(err.Error(), "standard input") || !strings.Contains(err.Error(), "MB") {
		t.Errorf("endless stdin: %v", err)
	}
}

// Issue 19.14: Ctrl-C (the command's context ends) stops a read of
// standard input that nobody writes to.
func TestStandardInputReadStopsWithContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := readRequest(ctx, "-", pr)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want the cancellation", err)
		}
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("reading standard input ignored the cancellation")
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// Issue 19.7: models needs no settings, so a broken settings file warns
// (naming the file) and the command works; a command that needs them
// stops, naming the file.
func TestModelsWorksWithBrokenSettings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAPPER_CONFIG_DIR", dir)
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(`{"api_key":`), 0o600)
	r := runCLI(t, nil, "", "models", "text2video")
	if r.code != 0 || !strings.Contains(r.out, "model svcq") || !strings.Contains(r.err, path) {
		t.Errorf("models: exit %d\n%s%s", r.code, r.out, r.err)
	}
	r = runCLI(t, nil, "", "history")
	if r.code != 2 || !strings.Contains(r.err, path) {
		t.Errorf("history: exit %d\n%s%s", r.code, r.out, r.err)
	}
}

// Issue 19.1: a task given up as lost is followed again with clapper follow
// once the service knows it, and its results are downloaded; the next watch
// no longer lists it as lost.
func TestFollowTakesALostTaskBack(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/text2video": {`{"task_id":"a1","state":"created"}`}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/files/a1.mp4" {
			io.WriteString(w, "video bytes")
			return
		}
		svc.ServeHTTP(w, r)
	}))
	defer srv.Close()
	data, dl := t.TempDir(), t.TempDir()
	exec := func(args ...string) run {
		return execute("", append(args, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)...)
	}
	if r := exec("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"); r.code != 0 {
		t.Fatal(r.err)
	}
	dbs, _ := filepath.Glob(filepath.Join(data, "live-*.db"))
	store, err := history.Open(dbs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i >= 0; i-- {
		store.RecordNotFound(context.Background(), "a1", time.Now().Add(-time.Duration(i)*track.LostWindow), api.ReasonTaskNotFound, 3, track.LostWindow)
	}
	store.Close()
	if r := exec("watch"); !strings.Contains(r.err, "task a1") || !strings.Contains(r.out, "No task is in flight.") {
		t.Fatalf("the task is not lost: %+v", r)
	}
	svc.mu.Lock()
	svc.answers["GET /ent/v2/tasks/a1/creations"] = []string{`{"id":"a1","state":"processing"}`,
		`{"id":"a1","state":"success","creations":[{"id":"c","url":"` + srv.URL + `/files/a1.mp4"}]}`}
	svc.mu.Unlock()
	r := exec("follow", "a1", "--download-dir", dl)
	if r.code != 0 || !strings.Contains(r.err, "followed again") || !strings.Contains(r.out, "success") {
		t.Errorf("follow: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if files, _ := filepath.Glob(filepath.Join(dl, "*a1*")); len(files) != 1 {
		t.Errorf("downloads: %v", files)
	}
	if r := exec("watch"); strings.Contains(r.err, "not followed") {
		t.Errorf("still listed as lost: %s", r.err)
	}
	if r := exec("follow", "zz9"); r.code == 0 || !strings.Contains(r.err, "not in this backend's history") {
		t.Errorf("follow of an id history lacks: exit %d %s", r.code, r.err)
	}
}

// Issue 19.2: a request another live clapper is still sending is shown as
// being sent, not of unknown outcome, by history and watch, and cannot be
// abandoned; once its sender is gone, it is of unknown outcome.
func TestRequestBeingSentIsNotUnknown(t *testing.T) {
	data := t.TempDir()
	exec := func(args ...string) run { return runCLIData(t, data, args...) }
	if r := exec("history"); r.code != 0 {
		t.Fatal(r.err)
	}
	store, err := history.Open(filepath.Join(data, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	// Sent by this (live) process, a minute ago, still beating.
	id, err := store.BeginSubmit(context.Background(), record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq1","prompt":"slow"}`), Sender: track.Sender()})
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	r := exec("history")
	if strings.Contains(r.out, "unknown") || !strings.Contains(r.out, "sending") {
		t.Errorf("history calls a request being sent unknown:\n%s", r.out)
	}
	if r := exec("watch", "--no-download"); strings.Contains(r.err, "unknown outcome") || !strings.Contains(r.err, "being sent") {
		t.Errorf("watch: %s", r.err)
	}
	if r := exec("history", "abandon", fmt.Sprint(id)); r.code == 0 || !strings.Contains(r.err, "being sent") {
		t.Errorf("abandon of a request being sent: exit %d %s", r.code, r.err)
	}
	// Nobody sends the next one (an older clapper, or one killed).
	store, _ = history.Open(filepath.Join(data, "history.db"))
	store.BeginSubmit(context.Background(), record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq1","prompt":"orphan"}`)})
	store.Close()
	if r := exec("history"); !strings.Contains(r.out, "1 request(s) of unknown outcome") {
		t.Errorf("the orphan is not of unknown outcome:\n%s", r.out)
	}
}

// Issue 19.13: an id an older clapper recorded unchecked forges no row in
// history's table and is never followed by watch.
func TestForgedIDInHistoryForgesNoRow(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	data := t.TempDir()
	exec := func(args ...string) run {
		return execute("", append(args, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)...)
	}
	exec("history")
	dbs, _ := filepath.Glob(filepath.Join(data, "live-*.db"))
	store, err := history.Open(dbs[0])
	if err != nil {
		t.Fatal(err)
	}
	id, _ := store.BeginSubmit(context.Background(), record.Intent{Operation: api.OpText2Video, Body: []byte(`{"model":"svcq1","prompt":"p"}`)})
	if err := store.MarkSubmitted(context.Background(), id, record.SubmittedEcho{TaskID: "x1\n9\tforged\tsuccess"}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	r := exec("history")
	for _, line := range strings.Split(r.out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "9") {
			t.Errorf("a forged row:\n%s", r.out)
		}
	}
	exec("watch", "--no-download")
	svc.mu.Lock()
	defer svc.mu.Unlock()
	for _, g := range svc.got {
		if g.method == "GET" {
			t.Errorf("watch read a forged id: %s", g.path)
		}
	}
}
