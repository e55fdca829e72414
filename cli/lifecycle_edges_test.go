package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/studio"
	"clapper/track"
)

// swappable serves through whichever sandbox is current, so that a test
// can restart the service with other settings on the same address (the
// same address is the same history).
type swappable struct {
	cur atomic.Pointer[sandbox.Server]
}

func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.cur.Load().ServeHTTP(w, r) }

func (s *swappable) start(t *testing.T, cfg sandbox.Config) {
	t.Helper()
	srv, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if old := s.cur.Swap(srv); old != nil {
		old.Close()
	}
	t.Cleanup(func() { srv.Close() })
}

// jobWatcher is fastWatcher that also expects multi-scene jobs to take a
// millisecond, so their --wait reads at once.
var jobWatcher = track.WatcherOptions{RequestsPerSecond: 1000, Burst: 100, Schedule: &track.Schedule{
	FirstPoll: time.Millisecond, MinInterval: time.Millisecond, MaxInterval: time.Millisecond,
	QueueCheckMin: time.Millisecond, QueueCheckMax: time.Millisecond, Slots: 5,
	Priors: map[api.Operation]time.Duration{api.OpGeneralOneClick: time.Millisecond},
}}

// cliOn runs commands against a service at url with one data dir, each
// under a bound that only a wait that never ends would reach.
func cliOn(url, data string) func(args ...string) run {
	return func(args ...string) run {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var out, errb bytes.Buffer
		root := NewRoot(&App{Out: &out, Err: &errb, In: strings.NewReader(""), watcher: jobWatcher})
		root.SetArgs(append(args, "--base-url", url, "--api-key", "k-123456789", "--data-dir", data))
		code := 0
		if err := root.ExecuteContext(ctx); err != nil {
			code = ExitCode(err)
			errb.WriteString(err.Error())
		}
		return run{out.String(), errb.String(), code}
	}
}

// A multi-scene job whose scenes fail ends `create --wait` with a failure,
// not with a wait that never ends.
func TestMultiSceneWaitEndsOnFailure(t *testing.T) {
	sb := &swappable{}
	sb.start(t, sandbox.Config{Speed: 3000, FailRate: 1, Seed: 5})
	ts := httptest.NewServer(sb)
	defer ts.Close()
	r := cliOn(ts.URL, t.TempDir())("create", "general_one_click", "--set", "images=https://example.com/a.png",
		"--set", "prompt=a day at the sea", "--set", "duration=25", "--wait", "--no-download")
	if r.code == 0 || r.code == exitInterrupted || !strings.Contains(r.err, "failed") {
		t.Errorf("create --wait of a failing job: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
}

// A scene edit that fails under --wait ends with a failure naming it, and
// the failed version is shown as failed, never chosen.
func TestFailingSceneVersionUnderWait(t *testing.T) {
	state := filepath.Join(t.TempDir(), "sandbox.json")
	sb := &swappable{}
	sb.start(t, sandbox.Config{Speed: 3000, Seed: 5, StatePath: state})
	ts := httptest.NewServer(sb)
	defer ts.Close()
	data := t.TempDir()
	cli := cliOn(ts.URL, data)
	job := succeededJob(t, cli)

	// The same service, now failing every task.
	sb.start(t, sandbox.Config{Speed: 3000, Seed: 5, StatePath: state, FailRate: 1})
	var rec jobJSON
	r := cli("scenes", job, "--json")
	json.Unmarshal([]byte(r.out), &rec)
	scene := rec.JobRecords[0].Jobs[0].ID
	r = cli("scenes", "edit", job, "--scene-job", scene, "--prompt", "a storm rolls in", "--wait")
	if r.code == 0 || r.code == exitInterrupted || !strings.Contains(r.out+r.err, "failed") {
		t.Fatalf("edit --wait of a failing version: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	r = cli("scenes", job)
	// The failed version alone says why, under it.
	if strings.Count(r.out, "\n      failed") != 1 || !strings.Contains(r.out, "\n      failed: ") {
		t.Errorf("only the failed version, and it, gives its reason:\n%s", r.out)
	}
	if !strings.Contains(r.out, "* v1 "+scene) || !strings.Contains(r.out, "failed") {
		t.Errorf("after a failed edit the first version stays chosen and the new one reads failed:\n%s", r.out)
	}
	if strings.Contains(r.out, "chosen by you") {
		t.Errorf("nothing was chosen by the user:\n%s", r.out)
	}
}

// succeededJob creates a three-scene job and waits for it to succeed.
func succeededJob(t *testing.T, cli func(args ...string) run) string {
	t.Helper()
	r := cli("create", "general_one_click", "--set", "images=https://example.com/a.png",
		"--set", "prompt=a day at the sea", "--set", "duration=25", "--wait", "--no-download", "--json")
	if r.code != 0 {
		t.Fatalf("create: exit %d: %s", r.code, r.err)
	}
	var created struct{ ID string }
	json.Unmarshal([]byte(r.out), &created)
	if created.ID == "" {
		t.Fatalf("no job id in %s", r.out)
	}
	return created.ID
}

// "(* chosen by you)" follows the user's choice: it is shown under the
// scene whose version the user chose, and under no other.
func TestScenesShowSaysWhichChoiceIsTheUsers(t *testing.T) {
	sb := &swappable{}
	sb.start(t, sandbox.Config{Speed: 3000, Seed: 5})
	ts := httptest.NewServer(sb)
	defer ts.Close()
	data := t.TempDir()
	cli := cliOn(ts.URL, data)
	job := succeededJob(t, cli)
	var rec jobJSON
	json.Unmarshal([]byte(cli("scenes", job, "--json").out), &rec)
	second := rec.JobRecords[1].Jobs[0].ID
	r := cli("scenes", "edit", job, "--scene-job", second, "--prompt", "a storm rolls in", "--wait")
	if r.code != 0 {
		t.Fatalf("edit: exit %d: %s", r.code, r.err)
	}
	if r := cli("scenes", job); strings.Contains(r.out, "chosen by you") {
		t.Fatalf("before any choice:\n%s", r.out)
	}
	// The user picks the first version of scene 2 (the Scenes page does this).
	cfg := studio.Config{DataDir: data, APIKey: "k-123456789", BaseURL: ts.URL}
	store, err := history.Open(cfg.HistoryPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.ChooseVersion(context.Background(), job, 1, second); err != nil {
		t.Fatal(err)
	}
	store.Close()
	r = cli("scenes", job)
	if strings.Count(r.out, "(* chosen by you)") != 1 {
		t.Fatalf("the user's choice is not told once:\n%s", r.out)
	}
	scene2 := r.out[strings.Index(r.out, "\nscene 2"):]
	if !strings.Contains(scene2[:strings.Index(scene2, "\nscene 3")], "(* chosen by you)") || !strings.Contains(scene2, "* v1 "+second) {
		t.Errorf("the choice is not shown under scene 2:\n%s", r.out)
	}
}

// A clone that fails registers no voice, and a speech that fails (here
// with a voice the service does not know) keeps none alive: the command
// fails, and clapper voices lists only what the service holds.
func TestFailedCloneAndSpeechThroughTheCLI(t *testing.T) {
	sb := &swappable{}
	sb.start(t, sandbox.Config{Speed: 3000, Seed: 9, FailRate: 1})
	ts := httptest.NewServer(sb)
	defer ts.Close()
	data := t.TempDir()
	cli := cliOn(ts.URL, data)
	// Exit 1, "a failed task", with and without --wait (the answer is final).
	for _, wait := range []string{"--json", "--wait"} {
		r := cli("create", "audio-clone", "--set", "audio_url=https://example.com/me.mp3", "--set", "voice_id=narrator_01", wait)
		if r.code != 1 || !strings.Contains(r.out+r.err, "failed") {
			t.Errorf("a failing clone (%s): exit %d\n%s\n%s", wait, r.code, r.out, r.err)
		}
	}
	if r := cli("voices", "--json"); strings.Contains(r.out, "narrator_01") {
		t.Errorf("a failed clone is listed as a voice:\n%s", r.out)
	}
	r := cli("create", "audio-tts", "--set", "text=Hello there.", "--set", "voice_setting_voice_id=nobody_knows_me")
	if r.code != 1 || !strings.Contains(r.out+r.err, "failed") {
		t.Errorf("a failing speech: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
}

// A voice the user forgot (deleted) is not listed, expiring or not.
func TestForgottenVoicesAreNotListed(t *testing.T) {
	data := t.TempDir()
	seedVoices(t, data, map[string]time.Duration{"kept_here": time.Hour, "forgot_me": 150 * time.Hour})
	s, err := history.Open(filepath.Join(data, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteVoice(context.Background(), "forgot_me"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, args := range [][]string{{"voices", "--json"}, {"voices"}, {"voices", "--expiring", "--within", "48h"}} {
		r := runCLIData(t, data, args...)
		if strings.Contains(r.out, "forgot_me") {
			t.Errorf("%v lists a forgotten voice:\n%s", args, r.out)
		}
	}
	if r := runCLIData(t, data, "voices", "--json"); !strings.Contains(r.out, "kept_here") {
		t.Errorf("the voice still held is not listed:\n%s", r.out)
	}
}

// compose --jobs sends exactly the versions named, in scene order, over
// the choice; without it, the chosen version of every scene.
func TestComposeJobsFlagOverridesTheChoice(t *testing.T) {
	sb := &swappable{}
	sb.start(t, sandbox.Config{Speed: 3000, Seed: 5})
	log := &composeLog{next: sb}
	ts := httptest.NewServer(log)
	defer ts.Close()
	cli := cliOn(ts.URL, t.TempDir())
	job := succeededJob(t, cli)
	var rec jobJSON
	json.Unmarshal([]byte(cli("scenes", job, "--json").out), &rec)
	first := rec.JobRecords[0].Jobs[0].ID
	r := cli("scenes", "edit", job, "--scene-job", first, "--prompt", "the boat at dusk", "--wait")
	if r.code != 0 {
		t.Fatalf("edit: exit %d: %s", r.code, r.err)
	}
	json.Unmarshal([]byte(cli("scenes", job, "--json").out), &rec)
	newest := rec.JobRecords[0].Jobs[1].ID
	others := []string{rec.JobRecords[1].Jobs[0].ID, rec.JobRecords[2].Jobs[0].ID}

	if r := cli("scenes", "compose", job, "--wait"); r.code != 0 {
		t.Fatalf("compose: exit %d: %s", r.code, r.err)
	}
	named := strings.Join(append([]string{first}, others...), ",")
	if r := cli("scenes", "compose", job, "--jobs", named, "--wait"); r.code != 0 {
		t.Fatalf("compose --jobs: exit %d: %s", r.code, r.err)
	}
	if len(log.sent) != 2 {
		t.Fatalf("compose requests %v", log.sent)
	}
	if got := strings.Join(log.sent[0], ","); got != strings.Join(append([]string{newest}, others...), ",") {
		t.Errorf("compose without --jobs sent %s, want the newest version of scene 1 (%s) and the others", got, newest)
	}
	if got := strings.Join(log.sent[1], ","); got != named {
		t.Errorf("compose --jobs %s sent %s", named, got)
	}
}

// Only a refusal that may pass later unchanged (429) is offered for
// resubmission; a 400 or 401 is not, and a 5xx is of unknown outcome
// (the task may exist), never offered for a blind resend. History keeps
// the same verdict.
func TestRefusalsOfferResubmitOnlyWhenTemporary(t *testing.T) {
	for _, c := range []struct {
		status    int
		resubmit  bool
		retryable bool
	}{
		{400, false, false}, {401, false, false}, {422, false, false}, {429, true, true}, {500, false, false},
	} {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			svc := &fakeService{
				answers:  map[string][]string{"POST /ent/v2/text2video": {fmt.Sprintf(`{"code":%d,"reason":"X","message":"no"}`, c.status)}},
				statuses: map[string]int{"POST /ent/v2/text2video": c.status},
			}
			srv := httptest.NewServer(svc)
			defer srv.Close()
			data := t.TempDir()
			common := []string{"--base-url", srv.URL, "--api-key", "k-0123456789", "--data-dir", data}
			r := execute("", append([]string{"create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"}, common...)...)
			if r.code != 1 {
				t.Errorf("exit %d: %s", r.code, r.err)
			}
			if got := strings.Contains(r.err, "clapper resubmit"); got != c.resubmit {
				t.Errorf("offers resubmit: %v, want %v:\n%s", got, c.resubmit, r.err)
			}
			if n := len(svc.got); n != 1 {
				t.Errorf("the creation was sent %d times", n)
			}
			h := execute("", append([]string{"history", "--json"}, common...)...)
			var line struct {
				Rejection *struct {
					Retryable bool `json:"retryable"`
				} `json:"rejection"`
			}
			json.Unmarshal([]byte(h.out), &line)
			if c.status < 500 && (line.Rejection == nil || line.Rejection.Retryable != c.retryable) {
				t.Errorf("history keeps %s, want retryable %v", h.out, c.retryable)
			}
		})
	}
}

// create --wait of a multi-scene job saves its composed video at once
// (its signed URL lives under three minutes).
func TestMultiSceneWaitSavesTheComposedVideo(t *testing.T) {
	sb := &swappable{}
	sb.start(t, sandbox.Config{Speed: 3000, Seed: 5})
	ts := httptest.NewServer(sb)
	defer ts.Close()
	dir := t.TempDir()
	r := cliOn(ts.URL, t.TempDir())("create", "general_one_click", "--set", "images=https://example.com/a.png",
		"--set", "prompt=a day at the sea", "--set", "duration=25", "--wait", "--download-dir", dir)
	if r.code != 0 {
		t.Fatalf("create --wait of a job: exit %d\n%s", r.code, r.err)
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "*_general_one_click_*.mp4"))
	if len(saved) != 1 || !strings.Contains(r.err, "saved "+saved[0]) {
		t.Errorf("the composed video: saved %v\n%s", saved, r.err)
	}
}
