package scenes

import (
	"bytes"
	"encoding/json"
	"errors"
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

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/history"
	"clapper/record"
	"clapper/track"
)

var t0 = time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)

// recorder keeps the bodies of the requests a handler got, by path suffix.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	got  map[string][]map[string]any
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodPost {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var m map[string]any
		json.Unmarshal(body, &m)
		r.mu.Lock()
		last := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
		r.got[last] = append(r.got[last], m)
		r.mu.Unlock()
	}
	r.next.ServeHTTP(w, req)
}

func (r *recorder) bodies(suffix string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got[suffix])
}

// rig is a sandbox on a fake clock, a history and a watcher on that clock.
type rig struct {
	t     *testing.T
	clock *sandbox.FakeClock
	srv   *sandbox.Server
	rec   *recorder
	svc   *Service
	dir   string
}

var fast = &track.Schedule{FirstPoll: time.Second, MinInterval: time.Second, MaxInterval: 2 * time.Second,
	QueueCheckMin: time.Second, QueueCheckMax: 2 * time.Second, Slots: 5,
	Priors: map[api.Operation]time.Duration{api.OpGeneralOneClick: time.Minute}}

func newRig(t *testing.T) *rig {
	t.Helper()
	clk := sandbox.NewFakeClock(t0)
	srv, err := sandbox.New(sandbox.Config{Clock: clk, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{next: srv, got: map[string][]map[string]any{}}
	ts := httptest.NewServer(rec)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	client, err := api.NewClient(ts.URL, "tok-123456789", api.WithRetry(api.RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := history.Open(filepath.Join(dir, "history.db"), history.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	r := &rig{t: t, clock: clk, srv: srv, rec: rec, dir: dir}
	r.svc = &Service{Client: client, Store: store, DirFor: func(api.Operation) string { return filepath.Join(dir, "downloads") }}
	r.svc.Watcher = r.newWatcher()
	return r
}

func (r *rig) newWatcher() *track.Watcher {
	return track.NewWatcher(r.svc.Client, r.svc.Store, track.WatcherOptions{RequestsPerSecond: 100, Burst: 20, Schedule: fast, Clock: r.clock})
}

// until moves time in steps of 2 s, reading what is due, until done.
func (r *rig) until(what string, done func() bool) {
	r.t.Helper()
	for i := 0; !done(); i++ {
		if i > 2000 {
			r.t.Fatalf("%s: not after %d steps", what, i)
		}
		r.clock.Advance(2 * time.Second)
		r.srv.Advance()
		r.svc.Watcher.Step(r.t.Context())
	drain:
		for {
			select {
			case <-r.svc.Watcher.Events():
			default:
				break drain
			}
		}
	}
}

func (r *rig) job(id string) record.Job {
	r.t.Helper()
	j, err := r.svc.Store.Job(r.t.Context(), id)
	if err != nil {
		r.t.Fatal(err)
	}
	return j
}

// versionDone reports whether version id of job jobID has ended.
func (r *rig) versionDone(jobID, id string) func() bool {
	return func() bool {
		j, err := r.svc.Store.Job(r.t.Context(), jobID)
		if err != nil {
			return false
		}
		_, v, ok := Find(j, id)
		return ok && api.IsTerminal(v.State)
	}
}

// create submits a 25-second job (three scenes) and follows it to success.
func (r *rig) create() string {
	r.t.Helper()
	tr := &track.Tracker{Client: r.svc.Client, Store: r.svc.Store, Clock: r.clock}
	sub, err := tr.Submit(r.t.Context(), api.OpGeneralOneClick, map[string]any{
		"images": []any{"https://example.com/a.png"}, "prompt": "a day at the sea", "duration": 25})
	if err != nil {
		r.t.Fatal(err)
	}
	id := sub.Task.Identifier()
	r.svc.Watcher.Watch(id, api.OpGeneralOneClick, "", sub.Task.State, r.clock.Now())
	r.until("job success", func() bool {
		t, err := r.svc.Store.TaskByID(r.t.Context(), id)
		return err == nil && t.State == api.StateSuccess
	})
	return id
}

func (r *rig) edit(jobID, sceneJob, prompt string) string {
	r.t.Helper()
	id, err := r.svc.Edit(r.t.Context(), jobID, sceneJob, prompt)
	if err != nil {
		r.t.Fatal(err)
	}
	// Recorded at once, as the scene's newest version.
	rec, v, ok := Find(r.job(jobID), id)
	if !ok || rec.Current().ID != id || v.Prompt != prompt {
		r.t.Fatalf("edit %s not recorded as the newest version: %+v", id, rec)
	}
	return id
}

// The flow: create, edit two scenes (one twice), pick the second
// version of one, compose, download; the compose request carries exactly
// the chosen versions.
func TestEditChooseComposeDownload(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	jobID := r.create()
	j := r.job(jobID)
	if len(j.Scenes) != 3 || len(j.Compose) != 1 {
		t.Fatalf("scenes %d, compositions %d", len(j.Scenes), len(j.Compose))
	}
	orig := []string{j.Scenes[0].Jobs[0].ID, j.Scenes[1].Jobs[0].ID, j.Scenes[2].Jobs[0].ID}

	a1 := r.edit(jobID, orig[0], "the boat leaves at dawn")
	b1 := r.edit(jobID, orig[1], "a storm rolls in")
	if _, err := r.svc.Edit(ctx, jobID, a1, "too soon"); !errors.As(err, new(*InputError)) {
		t.Errorf("an edit of a scene still being made: %v", err)
	}
	r.until("first edits", func() bool { return r.versionDone(jobID, a1)() && r.versionDone(jobID, b1)() })
	a2 := r.edit(jobID, a1, "the boat leaves at dusk")
	r.until("second edit", r.versionDone(jobID, a2))

	j = r.job(jobID)
	if got := len(j.Scenes[0].Jobs); got != 3 {
		t.Fatalf("scene 1 has %d versions, want 3", got)
	}
	// By default the newest successful version of each scene is chosen.
	if ids, err := ChosenIDs(j); err != nil || !slices.Equal(ids, []string{a2, b1, orig[2]}) {
		t.Fatalf("default choice %v %v", ids, err)
	}
	if err := r.svc.Choose(ctx, jobID, a1); err != nil {
		t.Fatal(err)
	}
	composeID, sent, err := r.svc.Compose(ctx, jobID, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{a1, b1, orig[2]}
	if !slices.Equal(sent, want) {
		t.Errorf("composed %v, want %v", sent, want)
	}
	bodies := r.rec.bodies("compose")
	if len(bodies) != 1 {
		t.Fatalf("%d compose requests", len(bodies))
	}
	var got []string
	for _, id := range bodies[0]["job_ids"].([]any) {
		got = append(got, id.(string))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the compose request carried %v, want exactly %v", got, want)
	}
	if edits := r.rec.bodies("edit"); len(edits) != 3 || edits[2]["job_id"] != a1 || edits[2]["prompt"] != "the boat leaves at dusk" {
		t.Errorf("edit requests %v", edits)
	}
	if _, c, ok := Find(r.job(jobID), composeID); !ok || c.State != api.StateCreated || !slices.Equal(ComposedInput(c), want) {
		t.Errorf("composition not recorded at once: %+v", c)
	}
	if _, _, err := r.svc.Compose(ctx, jobID, nil); !errors.As(err, new(*InputError)) {
		t.Errorf("a second composition while one runs: %v", err)
	}
	r.until("composition", r.versionDone(jobID, composeID))

	saved, err := r.svc.AutoDownload(ctx, jobID)
	if err != nil || len(saved) != 1 {
		t.Fatalf("auto-download %v %v", saved, err)
	}
	if st, err := os.Stat(saved[0]); err != nil || st.Size() == 0 {
		t.Fatalf("composed file %s: %v", saved[0], err)
	}
	// The file names the cut by its version: the job's first composition
	// is v1, this one v2.
	if base := filepath.Base(saved[0]); !strings.HasSuffix(base, "_"+jobID+"_cut_v2.mp4") {
		t.Errorf("the second composition saved as %s, want …_%s_cut_v2.mp4", base, jobID)
	}
	if again, err := r.svc.AutoDownload(ctx, jobID); err != nil || len(again) != 0 {
		t.Errorf("saved twice: %v %v", again, err)
	}
	// A scene version too, long after its last URL lapsed.
	r.clock.Advance(10 * time.Minute)
	path, err := r.svc.Download(ctx, jobID, a1, filepath.Join(r.dir, "mine"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != filepath.Join(r.dir, "mine") || !strings.HasSuffix(path, "_scene1_v2.mp4") {
		t.Errorf("scene 1's second version saved at %s", path)
	}
	if _, c, _ := Find(r.job(jobID), composeID); c.Download == nil || c.Download.Path != saved[0] {
		t.Errorf("composition's file not recorded: %+v", c.Download)
	}
	// The choice survives a reopening of the history.
	if j := r.job(jobID); j.Choices[0] != a1 {
		t.Errorf("choices %v", j.Choices)
	}
}

// A restart while an edit runs: a new watcher's Load follows the job again
// until the new version ends.
func TestRestartMidEditResumes(t *testing.T) {
	r := newRig(t)
	jobID := r.create()
	j := r.job(jobID)
	id := r.edit(jobID, j.Scenes[1].Jobs[0].ID, "a quieter sea")
	// The first run ends before anything read the edit.
	r.svc.Watcher = r.newWatcher()
	if n := r.svc.Watcher.Watching(); n != 0 {
		t.Fatalf("a fresh watcher follows %d", n)
	}
	if err := r.svc.Watcher.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := r.svc.Watcher.Watching(); n != 1 {
		t.Fatalf("after Load the watcher follows %d jobs, want 1", n)
	}
	r.until("the edit after a restart", r.versionDone(jobID, id))
	if _, v, _ := Find(r.job(jobID), id); v.State != api.StateSuccess || len(v.Images) == 0 {
		t.Errorf("version %+v", v)
	}
	if r.svc.Watcher.Step(t.Context()); r.svc.Watcher.Watching() != 0 {
		t.Errorf("still followed after the edit ended")
	}
}

// Refused before anything is sent: a prompt over the limit, an id that is
// no scene of the job.
func TestEditRefusesBadInput(t *testing.T) {
	r := newRig(t)
	jobID := r.create()
	scene := r.job(jobID).Scenes[0].Jobs[0].ID
	var ie *InputError
	if _, err := r.svc.Edit(t.Context(), jobID, scene, strings.Repeat("x", PromptLimit+1)); !errors.As(err, &ie) || !strings.Contains(err.Error(), "3000") {
		t.Errorf("long prompt: %v", err)
	}
	if _, err := r.svc.Edit(t.Context(), jobID, "nope", "fine"); !errors.As(err, &ie) {
		t.Errorf("unknown scene job: %v", err)
	}
	if _, err := r.svc.Edit(t.Context(), jobID, scene, ""); !errors.As(err, &ie) {
		t.Errorf("empty prompt: %v", err)
	}
	if n := len(r.rec.bodies("edit")); n != 0 {
		t.Errorf("%d edit requests sent", n)
	}
	if err := r.svc.Choose(t.Context(), jobID, r.job(jobID).Compose[0].Jobs[0].ID); !errors.As(err, &ie) {
		t.Errorf("a composition chosen as a scene: %v", err)
	}
}

// mv and premium_mv are followed through GET /tasks/{id}/creations and
// their results downloaded like any task's.
func TestMusicVideosAreTasks(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	tr := &track.Tracker{Client: r.svc.Client, Store: r.svc.Store, Clock: r.clock}
	img := "https://example.com/a.png"
	for op, body := range map[api.Operation]map[string]any{
		api.OpMV:        {"images": []any{img}, "audio_url": "https://example.com/s.mp3"},
		api.OpPremiumMV: {"premium_mv_mode": "perform", "images": []any{img, img, img, img, img, img}, "audio_url": "https://example.com/s.mp3"},
	} {
		sub, err := tr.Submit(ctx, op, body)
		if err != nil {
			t.Fatal(err)
		}
		id := sub.Task.Identifier()
		r.svc.Watcher.Watch(id, op, "", sub.Task.State, r.clock.Now())
		var final *api.TaskResult
		for i := 0; final == nil; i++ {
			if i > 5000 {
				t.Fatalf("%s never finished", op)
			}
			r.clock.Advance(2 * time.Second)
			r.srv.Advance()
			r.svc.Watcher.Step(ctx)
			for more := true; more; {
				select {
				case ev := <-r.svc.Watcher.Events():
					if ev.Kind == track.EventState && ev.To == api.StateSuccess {
						if ev.Job != nil || ev.Result == nil {
							t.Fatalf("%s read as a multi-scene job", op)
						}
						final = ev.Result
					}
				default:
					more = false
				}
			}
		}
		d := &track.Downloader{Store: r.svc.Store, Client: r.svc.Client, Clock: r.clock, DirFor: r.svc.DirFor}
		if err := d.QueueResults(ctx, id, op, r.clock.Now(), final); err != nil {
			t.Fatal(err)
		}
		dls, err := d.Settle(ctx, id)
		if err != nil || len(dls) == 0 || dls[0].Status != record.DownloadDone {
			t.Fatalf("%s downloads %+v %v", op, dls, err)
		}
	}
}
