package track

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// scripted answers each task's reads with its next body (the last repeats)
// and each creation with the next of creates.
type scripted struct {
	mu      sync.Mutex
	creates []string
	reads   map[string][]string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodPost {
		answer := s.creates[0]
		if len(s.creates) > 1 {
			s.creates = s.creates[1:]
		}
		fmt.Fprint(w, answer)
		return
	}
	id := strings.Split(r.URL.Path, "/")[4]
	bodies := s.reads[id]
	if len(bodies) == 0 {
		w.WriteHeader(404)
		fmt.Fprint(w, `{"code":404,"reason":"TaskNotFound","message":"no such task"}`)
		return
	}
	fmt.Fprint(w, bodies[0])
	if len(bodies) > 1 {
		s.reads[id] = bodies[1:]
	}
}

// stepUntil steps the watcher on the fake clock until cond holds.
func stepUntil(t *testing.T, w *Watcher, clk interface {
	Now() time.Time
	Set(time.Time)
}, cond func() bool) {
	t.Helper()
	for i := 0; i < 1000 && !cond(); i++ {
		next := w.Step(context.Background())
		drain(w)
		if next.IsZero() {
			break
		}
		clk.Set(next)
	}
	if !cond() {
		t.Fatal("the condition never held")
	}
}

// A trending-replicate task reports progress while processing: a second
// processing read with new progress is applied, not dropped as stale.
func TestProcessingToProcessingAppliesNewProgress(t *testing.T) {
	svc := &scripted{
		creates: []string{`{"task_id":"tr1","state":"created","credits":3,"created_at":"2026-11-25T12:00:00Z"}`},
		reads: map[string][]string{"tr1": {
			`{"id":"tr1","state":"processing","err_code":"","credits":3,"progress":10,"creations":[]}`,
			`{"id":"tr1","state":"processing","err_code":"","credits":3,"progress":55,"creations":[]}`,
			`{"id":"tr1","state":"processing","err_code":"","credits":3,"progress":90,"creations":[]}`,
		}},
	}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	if _, err := tr.Submit(context.Background(), api.OpTrendingReplicate, map[string]any{"video_url": "https://example.com/v.mp4"}); err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(c, store, WatcherOptions{Clock: clk, Schedule: &Schedule{FirstPoll: time.Second, MinInterval: time.Second,
		MaxInterval: time.Second, QueueCheckMin: time.Second, QueueCheckMax: time.Second, Slots: 5}})
	if err := w.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	progress := func(want int64) func() bool {
		return func() bool {
			task, err := store.TaskByID(context.Background(), "tr1")
			return err == nil && task.State == api.StateProcessing && task.Progress != nil && *task.Progress == want
		}
	}
	stepUntil(t, w, clk, progress(10))
	stepUntil(t, w, clk, progress(55))
	stepUntil(t, w, clk, progress(90))
}

// Result URLs live 24 hours, one hour for trending-replicate: the expiry
// history keeps (and the re-fetch before a download relies on) follows the
// operation.
func TestResultURLValidityPerOperation(t *testing.T) {
	success := func(id string, progress string) string {
		return `{"id":"` + id + `","state":"success","err_code":"","credits":3,` + progress + `"creations":[{"id":"c","url":"https://files.example/` + id + `.mp4"}]}`
	}
	svc := &scripted{
		creates: []string{
			`{"task_id":"tr1","state":"created","credits":3,"created_at":"2026-11-25T12:00:00Z"}`,
			`{"task_id":"tv1","state":"created","credits":3,"created_at":"2026-11-25T12:00:00Z"}`,
		},
		reads: map[string][]string{"tr1": {success("tr1", `"progress":100,`)}, "tv1": {success("tv1", "")}},
	}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	if _, err := tr.Submit(context.Background(), api.OpTrendingReplicate, map[string]any{"video_url": "https://example.com/v.mp4"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Submit(context.Background(), api.OpText2Video, body()); err != nil {
		t.Fatal(err)
	}
	for id, validity := range map[string]time.Duration{"tr1": time.Hour, "tv1": 24 * time.Hour} {
		read := clk.Now()
		if err := Reread(context.Background(), c, store, clk, "", id); err != nil {
			t.Fatal(err)
		}
		task, err := store.TaskByID(context.Background(), id)
		if err != nil || len(task.Creations) != 1 {
			t.Fatalf("%s: %+v %v", id, task, err)
		}
		if got := task.Creations[0].URLExpiresAt.Sub(read); got != validity {
			t.Errorf("%s (%s): URL valid for %v, want %v", id, task.Operation, got, validity)
		}
	}
}

// A clone the service answered failed registers no voice, even when the
// answer names one.
func TestFailedCloneRegistersNoVoice(t *testing.T) {
	svc := &scripted{creates: []string{
		`{"task_id":"cl1","state":"failed","voice_id":"narrator01","created_at":"2026-11-25T12:00:00Z"}`,
		`{"task_id":"cl2","state":"success","voice_id":"narrator02","created_at":"2026-11-25T12:00:00Z"}`,
	}}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	for _, id := range []string{"narrator01", "narrator02"} {
		if _, err := tr.Submit(context.Background(), api.OpAudioClone, map[string]any{"audio_url": "https://example.com/a.mp3", "voice_id": id}); err != nil {
			t.Fatal(err)
		}
	}
	vs, err := store.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].VoiceID != "narrator02" {
		t.Errorf("voices after a failed and a successful clone: %+v, want only narrator02", vs)
	}
}

// A synthesis that answered queueing and then failed does not keep its
// voice: only a success is a use.
func TestQueuedSpeechThatFailsKeepsNoVoice(t *testing.T) {
	svc := &scripted{
		creates: []string{`{"task_id":"s1","state":"queueing","file_url":"","credits":1,"created_at":"2026-11-25T13:00:00Z"}`},
		reads:   map[string][]string{"s1": {`{"id":"s1","state":"failed","err_code":"TTSFailed","credits":0,"creations":[]}`}},
	}
	c, store, clk := setup(t, svc)
	if err := store.RecordVoice(context.Background(), record.Voice{VoiceID: "narrator01", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	if _, err := tr.Submit(context.Background(), api.OpAudioTTS, say("narrator01")); err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(c, store, WatcherOptions{Clock: clk})
	if err := w.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	stepUntil(t, w, clk, func() bool {
		task, err := store.TaskByID(context.Background(), "s1")
		return err == nil && task.State == api.StateFailed
	})
	if v := voiceOf(t, store, "narrator01"); v.Kept || !v.LastUsedAt.IsZero() {
		t.Errorf("a failed synthesis kept the voice: %+v", v)
	}
	clk.Set(t0.Add(record.VoiceRetention))
	if v := voiceOf(t, store, "narrator01"); !v.Expired(clk.Now()) {
		t.Errorf("168 h after cloning, with only a failed synthesis, the voice is not expired: %+v", v)
	}
}

// A callback's Date may lie at most MaxSkew (5 minutes) from now, in the
// past or in the future; one second more is refused.
func TestCallbackDateWindowBothWays(t *testing.T) {
	svc := newService()
	w, ids, _, clk := slowWatcher(t, svc, 1)
	svc.states[ids[0]] = []string{"processing"}
	h := newHook(t, w, clk)
	body := `{"id":"` + ids[0] + `","state":"processing","credits":10}`
	for _, c := range []struct {
		offset time.Duration
		want   int
	}{
		{5 * time.Minute, http.StatusOK},
		{5*time.Minute + time.Second, http.StatusUnauthorized},
		{-5 * time.Minute, http.StatusOK},
		{-5*time.Minute - time.Second, http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
		api.SignCallback(req, "tok", clk.Now().Add(c.offset))
		if code := h.send(req); code != c.want {
			t.Errorf("a callback dated %v from now answered %d, want %d", c.offset, code, c.want)
		}
	}
}

// "A cloned voice is temporary: it is deleted unless it is used in speech
// synthesis within 168 hours ... Preview use does not count as use." A
// clone with a preview is recorded unkept, expiring 168 h after cloning.
func TestClonePreviewDoesNotKeepTheVoice(t *testing.T) {
	svc := &scripted{creates: []string{
		`{"task_id":"cl1","state":"success","voice_id":"narrator01","demo_audio":"https://files.example/demo.mp3","created_at":"2026-11-25T12:00:00Z"}`,
	}}
	c, store, clk := setup(t, svc)
	tr := &Tracker{Client: c, Store: store, Clock: clk}
	if _, err := tr.Submit(context.Background(), api.OpAudioClone, map[string]any{"audio_url": "https://example.com/a.mp3", "voice_id": "narrator01", "text": "Hello."}); err != nil {
		t.Fatal(err)
	}
	v := voiceOf(t, store, "narrator01")
	if v.Kept || !v.LastUsedAt.IsZero() {
		t.Errorf("the preview kept the voice: %+v", v)
	}
	if want := t0.Add(168 * time.Hour); !v.ExpiresAt.Equal(want) {
		t.Errorf("the voice expires %v, want %v (cloning + 168 h)", v.ExpiresAt, want)
	}
	if v.Expired(t0.Add(168*time.Hour - time.Millisecond)) {
		t.Error("expired before the 168 h were over")
	}
	if !v.Expired(t0.Add(168 * time.Hour)) {
		t.Error("not expired once the 168 h were over")
	}
}
