package history

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func submitted(t *testing.T, s *Store, taskID, body string) int64 {
	t.Helper()
	id := mustBegin(t, s, body)
	if err := s.MarkSubmitted(context.Background(), id, record.SubmittedEcho{TaskID: taskID}); err != nil {
		t.Fatal(err)
	}
	return id
}

func ptr[T any](v T) *T { return &v }

func TestApplyResultSequence(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-1", `{"prompt":"p"}`)
	exp := t0.Add(24 * time.Hour)
	steps := []struct {
		name    string
		u       record.Update
		changed bool
		state   string
		events  int
	}{
		{"queueing", record.Update{State: api.StateQueueing, Raw: []byte(`{"state":"queueing"}`)}, true, api.StateQueueing, 3},
		{"same state, progress", record.Update{State: api.StateQueueing, Progress: ptr[int64](10)}, false, api.StateQueueing, 3},
		{"processing", record.Update{State: api.StateProcessing, Progress: ptr[int64](50)}, true, api.StateProcessing, 4},
		{"stale queueing after processing", record.Update{State: api.StateQueueing, Progress: ptr[int64](5)}, false, api.StateProcessing, 4},
		{"success with creations", record.Update{State: api.StateSuccess, Credits: 40, Raw: []byte(`{"state":"success"}`),
			Creations: []record.Creation{
				{Index: 0, ID: "c0", URL: "https://r/0", URLExpiresAt: exp, CoverURL: "https://r/0c", CoverExpiresAt: exp},
				{Index: 1, ID: "c1", URL: "https://r/1", URLExpiresAt: exp},
			}}, true, api.StateSuccess, 5},
		{"duplicate success callback", record.Update{State: api.StateSuccess, Credits: 40}, false, api.StateSuccess, 5},
		{"failed after success is stale", record.Update{State: api.StateFailed, ErrCode: "E1"}, false, api.StateSuccess, 5},
	}
	for _, st := range steps {
		clk.Advance(time.Second)
		changed, err := s.ApplyResult(ctx, "tk-1", st.u)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		task, err := s.TaskByID(ctx, "tk-1")
		if err != nil {
			t.Fatal(err)
		}
		if changed != st.changed || task.State != st.state || len(task.Events) != st.events {
			t.Errorf("%s: changed %v state %s events %d; want %v %s %d", st.name, changed, task.State,
				len(task.Events), st.changed, st.state, len(task.Events))
		}
	}
	task, _ := s.TaskByID(ctx, "tk-1")
	if task.Credits != 40 || task.ErrCode != "" || task.Progress == nil || *task.Progress != 50 {
		t.Errorf("final task: credits %d err %q progress %v", task.Credits, task.ErrCode, task.Progress)
	}
	if string(task.Result) != `{"state":"success"}` {
		t.Errorf("result %s: a body-less update must not erase the last body", task.Result)
	}
	want := []string{">submitting", "submitting>created", "created>queueing", "queueing>processing", "processing>success"}
	if got := states(task.Events); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if string(task.Events[2].Raw) != `{"state":"queueing"}` || !task.Events[2].At.Equal(t0.Add(time.Second)) {
		t.Errorf("event raw/at: %+v", task.Events[2])
	}
	if len(task.Creations) != 2 || task.Creations[0].CoverURL != "https://r/0c" ||
		!task.Creations[0].CoverExpiresAt.Equal(exp) || !task.Creations[1].URLExpiresAt.Equal(exp) ||
		!task.Creations[1].WatermarkedExpiresAt.IsZero() {
		t.Errorf("creations %+v", task.Creations)
	}
}

func TestApplyResultFailedAndObservedAt(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-f", `{}`)
	at := t0.Add(-time.Hour) // received earlier than the store's clock says now
	changed, err := s.ApplyResult(ctx, "tk-f", record.Update{State: api.StateFailed, ErrCode: "ContentBlocked", ObservedAt: at})
	if err != nil || !changed {
		t.Fatalf("changed %v err %v", changed, err)
	}
	task, _ := s.TaskByID(ctx, "tk-f")
	if task.ErrCode != "ContentBlocked" || !task.UpdatedAt.Equal(at) || !task.Events[len(task.Events)-1].At.Equal(at) {
		t.Errorf("task %+v", task)
	}
	if _, err := s.ApplyResult(ctx, "nope", record.Update{State: api.StateSuccess}); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("unknown task id: %v", err)
	}
	if _, err := s.ApplyResult(ctx, "tk-f", record.Update{}); err == nil {
		t.Error("accepted a result without a state")
	}
}

// The spec does not name the off-peak cancellation state; "cancelled", a
// word api.IsTerminal knows, is recorded and treated as final.
func TestApplyResultCancelledIsFinal(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-x", `{}`)
	if changed, err := s.ApplyResult(ctx, "tk-x", record.Update{State: "cancelled"}); err != nil || !changed {
		t.Fatalf("%v %v", changed, err)
	}
	if changed, _ := s.ApplyResult(ctx, "tk-x", record.Update{State: api.StateProcessing}); changed {
		t.Error("left a final state")
	}
	inflight, _ := s.InFlight(ctx)
	if len(inflight) != 0 {
		t.Errorf("in flight: %+v", inflight)
	}
}

// A URL handed out again keeps its first expiry; a new URL brings its own.
func TestCreationExpiryRefreshedOnlyForNewURL(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-1", `{}`)
	first := t0.Add(time.Hour)
	if _, err := s.ApplyResult(ctx, "tk-1", record.Update{State: api.StateSuccess,
		Creations: record.CreationsFrom([]api.Creation{{ID: "c", URL: "https://r/a?sig=1", CoverURL: "https://r/c?sig=1"}}, first)}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(30 * time.Minute)
	second := clk.Now().Add(time.Hour)
	// Re-read: the video URL is re-signed, the cover URL is the same.
	if _, err := s.ApplyResult(ctx, "tk-1", record.Update{State: api.StateSuccess,
		Creations: record.CreationsFrom([]api.Creation{{ID: "c", URL: "https://r/a?sig=2", CoverURL: "https://r/c?sig=1"}}, second)}); err != nil {
		t.Fatal(err)
	}
	task, _ := s.TaskByID(ctx, "tk-1")
	c := task.Creations[0]
	if c.URL != "https://r/a?sig=2" || !c.URLExpiresAt.Equal(second) {
		t.Errorf("re-signed url %s expires %v, want %v", c.URL, c.URLExpiresAt, second)
	}
	if !c.CoverExpiresAt.Equal(first) {
		t.Errorf("unchanged cover url expiry moved to %v, want %v", c.CoverExpiresAt, first)
	}
	if !c.UpdatedAt.Equal(clk.Now()) {
		t.Errorf("updated %v", c.UpdatedAt)
	}
	// Read again: every URL as before (a watermarked one now too): the
	// deadlines stay those of the signatures, not of this read.
	clk.Advance(30 * time.Minute)
	third := clk.Now().Add(time.Hour)
	if _, err := s.ApplyResult(ctx, "tk-1", record.Update{State: api.StateSuccess,
		Creations: record.CreationsFrom([]api.Creation{{ID: "c", URL: "https://r/a?sig=2", CoverURL: "https://r/c?sig=1", WatermarkedURL: "https://r/w?sig=1"}}, third)}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(30 * time.Minute)
	if _, err := s.ApplyResult(ctx, "tk-1", record.Update{State: api.StateSuccess,
		Creations: record.CreationsFrom([]api.Creation{{ID: "c", URL: "https://r/a?sig=2", CoverURL: "https://r/c?sig=1", WatermarkedURL: "https://r/w?sig=1"}}, clk.Now().Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	task, _ = s.TaskByID(ctx, "tk-1")
	c = task.Creations[0]
	if !c.URLExpiresAt.Equal(second) || !c.CoverExpiresAt.Equal(first) || !c.WatermarkedExpiresAt.Equal(third) {
		t.Errorf("unchanged URLs' expiries moved: url %v (want %v), cover %v (want %v), watermarked %v (want %v)",
			c.URLExpiresAt, second, c.CoverExpiresAt, first, c.WatermarkedExpiresAt, third)
	}
}

func TestCreationsFrom(t *testing.T) {
	exp := t0.Add(time.Hour)
	got := record.CreationsFrom([]api.Creation{{ID: "a", URL: "u", WatermarkedURL: "w"}, {ID: "b", URL: "v"}}, exp)
	want := []record.Creation{
		{Index: 0, ID: "a", URL: "u", URLExpiresAt: exp, CoverExpiresAt: exp, WatermarkedURL: "w", WatermarkedExpiresAt: exp},
		{Index: 1, ID: "b", URL: "v", URLExpiresAt: exp, CoverExpiresAt: exp, WatermarkedExpiresAt: exp},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v", got)
	}
}

// History's own states take their places in api's order of states: every
// pair of a recorded state and a service answer.
func TestStaleEveryPair(t *testing.T) {
	answers := []string{"", api.StateCreated, api.StateQueueing, api.StateProcessing, api.StateSuccess, api.StateFailed, "cancelled", "paused"}
	// Y: the answer is written; .: it is stale.
	local := map[string]string{
		record.StateSubmitting: "Y Y Y Y Y Y Y Y",
		record.StateRejected:   ". . . . . . . .",
		record.StateAbandoned:  ". . . . . . . .",
	}
	for current, row := range local {
		for j, c := range strings.Fields(row) {
			if got, want := !stale(current, answers[j]), c == "Y"; got != want {
				t.Errorf("recorded %s, answer %q: written %v, want %v", current, answers[j], got, want)
			}
		}
	}
	for _, current := range answers {
		for _, next := range answers {
			if stale(current, next) == api.Supersedes(current, next) {
				t.Errorf("recorded %q, answer %q: history and api's order disagree", current, next)
			}
		}
	}
}

// A task ends once: a different final answer after the first is not
// written, while the same state again brings its news (progress).
func TestApplyResultKeepsTheFirstFinalState(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	seed(t, s, clk, []row{{api.OpText2Video, "svcq1", "fox", api.StateProcessing, 3, t0}})
	p := int64(70)
	if _, err := s.ApplyResult(ctx, "tk-000", record.Update{State: api.StateProcessing, Progress: &p}); err != nil {
		t.Fatal(err)
	}
	if task, _ := s.TaskByID(ctx, "tk-000"); task.Progress == nil || *task.Progress != 70 {
		t.Fatalf("processing -> processing with new progress was dropped: %v", task.Progress)
	}
	if changed, err := s.ApplyResult(ctx, "tk-000", record.Update{State: api.StateFailed, ErrCode: "X"}); err != nil || !changed {
		t.Fatalf("failed: changed %v, %v", changed, err)
	}
	if changed, err := s.ApplyResult(ctx, "tk-000", record.Update{State: api.StateSuccess}); err != nil || changed {
		t.Fatalf("success after failed: changed %v, %v", changed, err)
	}
	if task, _ := s.TaskByID(ctx, "tk-000"); task.State != api.StateFailed {
		t.Fatalf("the first final state was replaced: %s", task.State)
	}
}

// A request with no prompt is known by its subject, so its rows differ.
func TestPromptOfSubjects(t *testing.T) {
	cases := []struct {
		op   api.Operation
		req  string
		want string
	}{
		{api.OpText2Video, `{"prompt":"a fox"}`, "a fox"},
		{api.OpAudioClone, `{"voice_id":"grandpa_joe","text":"Hi, it is Joe."}`, "grandpa_joe"},
		{api.OpPremiumMV, `{"premium_mv_mode":"sing","audio_url":"https://x/songs/ballad%20two.mp3?sig=1"}`, "sing · ballad two.mp3"},
		{api.OpPremiumMV, `{"premium_mv_mode":"dance","audio_url":"https://x/b.mp3","prompt":"on a roof"}`, "dance · b.mp3 · on a roof"},
		{api.OpMV, `{"audio_url":"data:audio/mpeg;sha256=ab;bytes=2100000"}`, "local audio 2.1 MB"},
		// Sizes: kB rounded up below a million bytes, then MB.
		{api.OpMV, `{"audio_url":"data:audio/mpeg;sha256=ab;bytes=0"}`, "local audio"},
		{api.OpMV, `{"audio_url":"data:audio/mpeg;sha256=ab;bytes=1"}`, "local audio 1 kB"},
		{api.OpMV, `{"audio_url":"data:audio/mpeg;sha256=ab;bytes=1500"}`, "local audio 2 kB"},
		{api.OpMV, `{"audio_url":"data:audio/mpeg;sha256=ab;bytes=999999"}`, "local audio 1000 kB"},
		{api.OpMV, `{"audio_url":"data:audio/mpeg;sha256=ab;bytes=1000000"}`, "local audio 1.0 MB"},
		// A URL without a file name is named by its host.
		{api.OpTrendingReplicate, `{"video_url":"https://clips.example/"}`, "clips.example"},
		{api.OpTrendingReplicate, `{"video_url":"https://clips.example"}`, "clips.example"},
		{api.OpMV, `{"audio_url":"https://x/s.mp3","prompt":"neon"}`, "neon"},
		{api.OpTemplateStory, `{"story":"love_story"}`, "love_story"},
		{api.OpTrendingReplicate, `{"video_url":"https://x/t/trend.mp4"}`, "trend.mp4"},
		{api.OpTiming2Audio, `{"timing_prompts":[{"prompt":"door"},{"prompt":"rain"}]}`, "door | rain"},
		// Images alone: the first names the task.
		{api.OpImg2Video, `{"images":["https://x/files/1/image.png?exp=2"]}`, "image.png"},
		{api.OpStartEnd2Video, `{"images":["data:image/png;sha256=ab;bytes=240000","https://x/last.png"]}`, "local image 240 kB"},
		{api.OpImg2Video, `{"images":["https://x/first.png"],"prompt":"slow zoom"}`, "slow zoom"},
		{api.OpImg2Video, `{"images":[]}`, ""},
	}
	for _, c := range cases {
		var req map[string]any
		if err := json.Unmarshal([]byte(c.req), &req); err != nil {
			t.Fatal(err)
		}
		if got := promptOf(c.op, req, nil); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.op, c.req, got, c.want)
		}
	}
}

// The operations of 2026 are known by what they were made of: a
// multiframe by its key frames' prompts, an extend or an upscale by the
// video it starts from (the task it was sent onward from, by its number),
// a template video by its template.
func TestPromptOfTheOperationsOf2026(t *testing.T) {
	fromTask := []record.Parent{{LocalID: 3, Field: "video_creation_id"}}
	byURL := []record.Parent{{LocalID: 4, Field: "video_url"}}
	cases := []struct {
		op      api.Operation
		req     string
		parents []record.Parent
		want    string
	}{
		{api.OpMultiframe, `{"start_image":"https://x/s.png","image_settings":[{"key_image":"https://x/a.png","prompt":" the fox turns "},{"key_image":"https://x/b.png"},{"key_image":"https://x/c.png","prompt":"it leaps"}]}`, nil, "the fox turns | it leaps"},
		{api.OpMultiframe, `{"start_image":"https://x/files/start.png","image_settings":[{"key_image":"https://x/a.png"},{"key_image":"https://x/b.png","prompt":" "}]}`, nil, "2 key frames from start.png"},
		{api.OpMultiframe, `{"start_image":"https://x/files/image.png","image_settings":[{"key_image":"https://x/a.png"},{"key_image":"https://x/b.png"}]}`,
			[]record.Parent{{LocalID: 2, Field: "image_settings[0].key_image"}, {LocalID: 1, Field: "start_image"}}, "2 key frames from #1's image"},
		{api.OpMultiframe, `{"start_image":"data:image/png;sha256=ab;bytes=240000","image_settings":[{"key_image":"https://x/a.png"}]}`, nil, "1 key frame from local image 240 kB"},
		{api.OpMultiframe, `{"image_settings":"oops"}`, nil, "0 key frames"},
		{api.OpExtend, `{"video_creation_id":"3141","prompt":"the camera pulls back"}`, fromTask, "the camera pulls back"},
		{api.OpExtend, `{"video_creation_id":"3141"}`, fromTask, "extend #3's video"},
		{api.OpExtend, `{"video_creation_id":"3141"}`, nil, "extend creation 3141"},
		{api.OpExtend, `{"video_url":"https://x/clips/beach.mp4?sig=1"}`, nil, "extend beach.mp4"},
		{api.OpExtend, `{"video_url":"https://x/clips/beach.mp4"}`, byURL, "extend #4's video"},
		// The creation id wins over a URL, as the service reads them.
		{api.OpExtend, `{"video_creation_id":"3141","video_url":"https://x/beach.mp4"}`, byURL, "extend creation 3141"},
		{api.OpUpscaleNew, `{"video_creation_id":"3141","upscale_resolution":"4K"}`, fromTask, "to 4K · #3's video"},
		{api.OpUpscaleNew, `{"video_url":"https://x/beach.mp4","upscale_resolution":"2K"}`, nil, "to 2K · beach.mp4"},
		{api.OpUpscaleNew, `{"video_url":"https://x/beach.mp4"}`, nil, "beach.mp4"},
		{api.OpTemplate2Video, `{"template":"exotic_princess","prompt":"in a garden","images":["https://x/me.png"]}`, nil, "exotic_princess · in a garden"},
		{api.OpTemplate2Video, `{"template":"hugging","images":["https://x/me.png"]}`, nil, "hugging"},
		{api.OpText2Audio, `{"prompt":"rain on a tin roof","duration":5}`, nil, "rain on a tin roof"},
	}
	for _, c := range cases {
		var req map[string]any
		if err := json.Unmarshal([]byte(c.req), &req); err != nil {
			t.Fatal(err)
		}
		if got := promptOf(c.op, req, c.parents); got != c.want {
			t.Errorf("%s %s %v: %q, want %q", c.op, c.req, c.parents, got, c.want)
		}
	}
}

// A search by word finds the operations of 2026 by their subjects, on
// either store: the subject is the prompt column the search index reads.
func TestSearchFindsTheOperationsOf2026(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	submit := func(op api.Operation, body string, parents ...record.Parent) int64 {
		t.Helper()
		id, err := s.BeginSubmit(ctx, record.Intent{Operation: op, Body: []byte(body), Parents: parents})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	fox := submit(api.OpText2Video, `{"model":"svcq1","prompt":"a red fox in snow"}`)
	frames := submit(api.OpMultiframe, `{"model":"svcq2-pro","start_image":"https://x/s.png","image_settings":[{"key_image":"https://x/a.png","prompt":"the fox turns"},{"key_image":"https://x/b.png","prompt":"it leaps"}]}`)
	extend := submit(api.OpExtend, `{"model":"svcq2-pro","video_creation_id":"3141"}`, record.Parent{LocalID: fox, Field: "video_creation_id"})
	upscale := submit(api.OpUpscaleNew, `{"video_creation_id":"3141","upscale_resolution":"4K"}`, record.Parent{LocalID: fox, Field: "video_creation_id"})
	princess := submit(api.OpTemplate2Video, `{"template":"exotic_princess","prompt":"in a garden","images":["https://x/me.png"]}`)
	rain := submit(api.OpText2Audio, `{"model":"audio1.0","prompt":"rain on a tin roof"}`)
	for _, c := range []struct {
		text string
		want []int64 // newest first
	}{
		{"leaps", []int64{frames}},
		{"fox", []int64{frames, fox}},
		{"#1's video", []int64{upscale, extend}},
		{"4K", []int64{upscale}}, // a short word: LIKE
		{"princess", []int64{princess}},
		{"garden", []int64{princess}},
		{"tin roof", []int64{rain}},
	} {
		p, err := s.Tasks(ctx, record.Filter{Text: c.text})
		if err != nil {
			t.Fatal(err)
		}
		if got := localIDs(p); !slices.Equal(got, c.want) {
			t.Errorf("%q finds %v, want %v", c.text, got, c.want)
		}
	}
	if got, err := s.Task(ctx, extend); err != nil || got.Prompt != "extend #1's video" {
		t.Errorf("the extend's subject: %q, %v", got.Prompt, err)
	}
}
