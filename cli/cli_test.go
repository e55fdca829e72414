package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
	"clapper/studio"
	"clapper/track"
)

// fakeService answers with canned bodies per "METHOD path" and records
// every request it got.
type fakeService struct {
	mu       sync.Mutex
	answers  map[string][]string // successive bodies; the last repeats
	statuses map[string]int
	got      []recorded
}

type recorded struct {
	method, path, auth string
	body               map[string]any
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := r.Method + " " + r.URL.Path
	var body map[string]any
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	dec.Decode(&body)
	f.got = append(f.got, recorded{r.Method, r.URL.Path, r.Header.Get("Authorization"), body})
	answers := f.answers[key]
	if len(answers) == 0 {
		w.WriteHeader(404)
		io.WriteString(w, `{"code":404,"reason":"TaskNotFound","message":"task not found","metadata":{"trace_id":"tr-404"}}`)
		return
	}
	if st := f.statuses[key]; st != 0 {
		w.WriteHeader(st)
	}
	io.WriteString(w, answers[0])
	if len(answers) > 1 {
		f.answers[key] = answers[1:]
	}
}

// fastWatcher reads a task every millisecond, so --wait tests take no time.
var fastWatcher = track.WatcherOptions{RequestsPerSecond: 1000, Burst: 100, Schedule: &track.Schedule{
	FirstPoll: time.Millisecond, MinInterval: time.Millisecond, MaxInterval: time.Millisecond,
	QueueCheckMin: time.Millisecond, QueueCheckMax: time.Millisecond, Slots: 5,
	Priors: map[api.Operation]time.Duration{api.OpReference2Image: time.Millisecond, api.OpText2Video: time.Millisecond},
}}

type run struct {
	out, err string
	code     int
}

// execute runs one clapper command in-process and returns what it printed
// and its exit status.
func execute(stdin string, args ...string) run {
	var out, errb bytes.Buffer
	root := NewRoot(&App{Out: &out, Err: &errb, In: strings.NewReader(stdin), watcher: fastWatcher})
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	code := 0
	if err != nil {
		code = ExitCode(err)
		errb.WriteString(err.Error())
	}
	return run{out.String(), errb.String(), code}
}

// runCLI runs a command against svc (if any) with a fresh data dir.
func runCLI(t *testing.T, svc *fakeService, stdin string, args ...string) run {
	t.Helper()
	full := append([]string{}, args...)
	if svc != nil {
		srv := httptest.NewServer(svc)
		t.Cleanup(srv.Close)
		full = append(full, "--base-url", srv.URL, "--api-key", "k-123")
	}
	return execute(stdin, append(full, "--data-dir", t.TempDir())...)
}

func TestModelsListsEveryReference2VideoModelWithDefaults(t *testing.T) {
	r := runCLI(t, nil, "", "models", "reference2video")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for _, want := range []string{
		"model svcq1 (spec)\n", "model svcq2 (spec)\n", "model svcq2-pro (spec)\n", "model svcq3 (spec)\n", "model svcq3-turbo (spec)\n",
		"model svcq3-drama (spec)\n", "model svcq3-mix (spec)\n", "model svcq3-ad (spec)\n", "model svcq4-preview (spec)\n", "model svc2.0 (service 1)\n",
		"default 8; 2 to 16 seconds", "default 1080p; only 1080p", "one of 540p, 720p, 1080p, 2K, 4K",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("models output lacks %q", want)
		}
	}
	if strings.Count(r.out, "\nmodel ") != 10 {
		t.Errorf("want 10 models, got %d", strings.Count(r.out, "\nmodel "))
	}
}

func TestModelsJSONAndUnknownOperation(t *testing.T) {
	r := runCLI(t, nil, "", "models", "audio-tts", "--json")
	var ops []catalog.OperationRules
	if err := json.Unmarshal([]byte(r.out), &ops); err != nil || len(ops) != 1 || len(ops[0].Models[0].Fields) != 8 {
		t.Fatalf("models --json: %v %s", err, r.out)
	}
	if r := runCLI(t, nil, "", "models", "img2vid"); r.code != 2 || !strings.Contains(r.err, "unknown operation") {
		t.Errorf("unknown operation: %+v", r)
	}
}

func TestDryRunPrintsTypedRequest(t *testing.T) {
	r := runCLI(t, nil, "", "create", "text2video", "--set", "model=svcq3-turbo", "--set", "prompt=a fox",
		"--set", "duration=8", "--set", "audio=false", "--dry-run")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	want := "{\n  \"audio\": false,\n  \"duration\": 8,\n  \"model\": \"svcq3-turbo\",\n  \"prompt\": \"a fox\"\n}\n"
	if r.out != want {
		t.Errorf("dry run printed\n%s\nwant\n%s", r.out, want)
	}
}

func TestInvalidRequestIsNotSentAndListsEveryField(t *testing.T) {
	svc := &fakeService{}
	r := runCLI(t, svc, "", "create", "reference2video", "--set", "model=svcq1", "--set", "duration=10",
		"--set", "resolution=720p", "--set", "images=https://e.com/a.png")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2", r.code)
	}
	for _, want := range []string{"3 problems", "prompt: required", "duration: svcq1 accepts only 5 seconds, got 10", "resolution: svcq1 accepts only 1080p"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}
	if len(svc.got) != 0 {
		t.Errorf("%d requests sent", len(svc.got))
	}
}

func writePNG(t *testing.T, dir, name string, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)))
	p := filepath.Join(dir, name)
	os.WriteFile(p, b.Bytes(), 0o600)
	return p
}

func TestLocalFilesBecomeDataURIs(t *testing.T) {
	dir := t.TempDir()
	writePNG(t, dir, "cat.png", 256, 256)
	first := writePNG(t, dir, "first.png", 200, 200)
	req := `{"model":"svcq2","prompt":"[@cat] and a dog","subjects":[{"name":"cat","images":["cat.png"]}]}`
	os.WriteFile(filepath.Join(dir, "req.json"), []byte(req), 0o600)
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/reference2video": {`{"task_id":"t1","state":"created","credits":40}`}}}
	r := runCLI(t, svc, "", "create", "reference2video", "-f", filepath.Join(dir, "req.json"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	subj := svc.got[0].body["subjects"].([]any)[0].(map[string]any)
	img := subj["images"].([]any)[0].(string)
	if !strings.HasPrefix(img, "data:image/png;base64,") {
		t.Fatalf("subject image sent as %q", textutil.Clip(img, 40))
	}
	if _, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(img, "data:image/png;base64,")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(r.out, "reference2video task t1 (#1): created, 40 credits") {
		t.Errorf("output %q", r.out)
	}
	// --set appends list items, converting paths.
	r = runCLI(t, nil, "", "create", "start-end2video", "--set", "model=svcq3-pro", "--set", "images="+first, "--set", "images="+first, "--dry-run")
	var body map[string]any
	if err := json.Unmarshal([]byte(r.out), &body); err != nil || len(body["images"].([]any)) != 2 {
		t.Fatalf("dry run: %v\n%s%s", err, r.out, r.err)
	}
	r = runCLI(t, nil, "", "create", "img2video", "--set", "model=svcq1", "--set", "images="+filepath.Join(dir, "missing.png"))
	if r.code != 2 || !strings.Contains(r.err, "missing.png: no such file") {
		t.Errorf("missing file: %+v", r)
	}
	r = runCLI(t, nil, "", "create", "audio-clone", "--set", "audio_url="+first, "--set", "voice_id=Abcdefgh1")
	if r.code != 2 || !strings.Contains(r.err, "needs an http(s) URL") {
		t.Errorf("local file for a URL-only field: %+v", r)
	}
}

func TestSetErrors(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--set colour=red", "colour: not a field of text2video"},
		{"--set timing_prompts=x", "not a field"},
		{"--set prompt", "want field=value or field:=JSON"},
		{"--set 'model:=[1'", "not valid JSON"},
	} {
		args := append([]string{"create", "text2video", "--dry-run"}, strings.Fields(strings.ReplaceAll(c.args, "'", ""))...)
		if r := runCLI(t, nil, "", args...); r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("%s: exit %d, stderr %q", c.args, r.code, r.err)
		}
	}
	r := runCLI(t, nil, "", "create", "timing2audio", "--set", "model=audio1.0", "--set", "timing_prompts=x")
	if r.code != 2 || !strings.Contains(r.err, "timing_prompts:=") {
		t.Errorf("object list via =: %+v", r)
	}
	r = runCLI(t, nil, `{"model":"audio1.0","timing_prompts":[{"from":0,"to":3,"prompt":"rain"}]}`, "create", "timing2audio", "-f", "-", "--set", "duration=2", "--dry-run")
	if r.code != 2 || !strings.Contains(r.err, "timing_prompts[0].to: must lie within 0 to 2 s") {
		t.Errorf("stdin request: %+v", r)
	}
}

func TestRejectionShowsReasonTraceAndExplanation(t *testing.T) {
	svc := &fakeService{
		answers:  map[string][]string{"POST /ent/v2/text2video": {`{"code":429,"reason":"QuotaExceeded","message":"too many running tasks","metadata":{"trace_id":"tr-9"}}`}},
		statuses: map[string]int{"POST /ent/v2/text2video": 429},
	}
	r := runCLI(t, svc, "", "create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p")
	if r.code != 1 || !strings.Contains(r.err, "QuotaExceeded (HTTP 429): too many running tasks (trace id tr-9)") || !strings.Contains(r.err, "resubmitted") {
		t.Errorf("rejection: %+v", r)
	}
	if len(svc.got) != 1 || svc.got[0].auth != "Token k-123" {
		t.Errorf("requests %+v", svc.got)
	}
}

func TestGetDecodesRealBodies(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{
		"GET /ent/v2/tasks/ok/creations":              {`{"id":"ok","state":"success","err_code":"","credits":20,"payload":"","creations":[{"id":"c1","url":"https://cdn/x.mp4","cover_url":"https://cdn/x.jpg","watermarked_url":"https://cdn/xw.mp4","moderation_url":"https://m"}]}`},
		"GET /ent/v2/tasks/bad/creations":             {`{"id":"bad","state":"failed","err_code":"TaskPromptPolicyViolation","credits":0,"creations":null}`},
		"GET /ent/v2/tasks/echo/creations":            {`{"task_id":"echo","state":"created","model":"svcq3-pro","images":"https://x/a.png","credits":"15","created_at":"2025-04-14T15:41:33.695830549Z"}`},
		"GET /ent/v2/tasks/run/creations":             {`{"id":"run","state":"processing","err_code":"","credits":0,"progress":35,"creations":null}`},
		"GET /ent/v2/one-click/general_one_click/job": {`{"id":"job","type":"one_click","state":"processing","job_records":[{"type":"generate_video","index":0,"jobs":[{"id":"s1","state":"success","mv_generate_video_input":{"duration":5,"prompt":"sunrise","lyric_text":"","signed_images":[]}},{"id":"s2","state":"processing","mv_generate_video_input":{"duration":5,"prompt":"sunset"}}]},{"type":"compose","index":1,"jobs":[]}],"err_code":"","err_msg":"","signed_url":""}`},
		"GET /ent/v2/tasks/esc/creations":             {`{"id":"esc","state":"success\u001b[2J","err_code":"","credits":1,"creations":[{"id":"c","url":"https://x/\u0007a"}]}`},
	}}
	for id, wants := range map[string][]string{
		"ok":   {"task ok: success, 20 credits", "1. https://cdn/x.mp4", "cover: https://cdn/x.jpg", "watermarked: https://cdn/xw.mp4"},
		"bad":  {"task bad: failed", "error: TaskPromptPolicyViolation: The prompt was refused"},
		"echo": {"task echo: created, 15 credits"},
		"run":  {"task run: processing (35%)"},
		"job":  {"job job: processing", "scene 1: processing (job s2, version 2 of 2)", "prompt: sunset"},
		"esc":  {"task esc: success, 1 credit\n", "https://x/a"},
	} {
		r := runCLI(t, svc, "", "get", id)
		if r.code != 0 {
			t.Errorf("get %s: exit %d %s", id, r.code, r.err)
		}
		for _, w := range wants {
			if !strings.Contains(r.out, w) {
				t.Errorf("get %s: output lacks %q:\n%s", id, w, r.out)
			}
		}
		if strings.ContainsAny(r.out, "\x1b\x07") {
			t.Errorf("get %s printed control characters: %q", id, r.out)
		}
	}
	r := runCLI(t, svc, "", "get", "ok", "--json")
	if !strings.HasPrefix(r.out, `{"id":"ok"`) {
		t.Errorf("--json is not the raw body: %s", r.out)
	}
	r = runCLI(t, svc, "", "get", "nope")
	if r.code != 1 || !strings.Contains(r.err, "TaskNotFound") || !strings.Contains(r.err, "tr-404") {
		t.Errorf("unknown task: %+v", r)
	}
}

func TestCreateWaitFollowsAndDownloads(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/reference2image": {`{"task_id":"w1","state":"created","credits":8}`}}}
	var fileAuth []string // the Authorization of each result request: the key goes to the service only
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/files/1.png" {
			svc.mu.Lock()
			fileAuth = append(fileAuth, r.Header.Get("Authorization"))
			svc.mu.Unlock()
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, "not really a png")
			return
		}
		svc.ServeHTTP(w, r)
	}))
	defer srv.Close()
	svc.answers["GET /ent/v2/tasks/w1/creations"] = []string{`{"id":"w1","state":"queueing","credits":8}`, `{"id":"w1","state":"processing","credits":8}`,
		`{"id":"w1","state":"success","credits":8,"creations":[{"id":"c","url":"` + srv.URL + `/files/1.png"}]}`}
	dl, data := t.TempDir(), t.TempDir()
	r := execute("", "create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a cat", "--wait",
		"--download-dir", dl, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)
	if r.code != 0 {
		t.Fatal(r.err)
	}
	if !strings.Contains(r.out, "task w1: success") {
		t.Errorf("output %q", r.out)
	}
	for _, want := range []string{": queueing", ": processing", ": success", "saved " + dl} {
		if !strings.Contains(r.err, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dl, "*_reference2image_w1_1.png"))
	if len(files) != 1 {
		t.Errorf("downloaded %v", files)
	}
	svc.mu.Lock()
	if len(fileAuth) == 0 || strings.Join(fileAuth, "") != "" {
		t.Errorf("result requests carried Authorization %q (issue 19.6: downloads never carry the key)", fileAuth)
	}
	svc.mu.Unlock()
	// What the CLI created is in that service's history, with every state
	// it went through.
	r = execute("", "history", "--json", "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)
	var line historyLine
	if err := json.Unmarshal([]byte(r.out), &line); err != nil || line.TaskID != "w1" || line.State != "success" || line.Credits != 8 {
		t.Errorf("history: %v %+v", err, line)
	}
}

// runCLIData runs a command that needs no service against a data dir.
func runCLIData(t *testing.T, data string, args ...string) run {
	t.Helper()
	return execute("", append(args, "--data-dir", data)...)
}

func TestAPIKeyWithoutBaseURL(t *testing.T) {
	var out, errb bytes.Buffer
	root := NewRoot(&App{Out: &out, Err: &errb, In: strings.NewReader("")})
	root.SetArgs([]string{"get", "1", "--api-key", "k", "--data-dir", t.TempDir()})
	t.Setenv(studio.EnvBaseURL, "")
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "--base-url") || strings.Contains(err.Error(), "k ") {
		t.Errorf("err = %v", err)
	}
}

func TestWatchFollowsWhatHistoryHoldsInFlight(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/text2video": {`{"task_id":"a1","state":"created"}`, `{"task_id":"a2","state":"created"}`}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/files/a1.mp4" {
			io.WriteString(w, "video bytes")
			return
		}
		svc.ServeHTTP(w, r)
	}))
	defer srv.Close()
	svc.answers["GET /ent/v2/tasks/a1/creations"] = []string{`{"id":"a1","state":"processing"}`, `{"id":"a1","state":"success","creations":[{"id":"c","url":"` + srv.URL + `/files/a1.mp4"}]}`}
	svc.answers["GET /ent/v2/tasks/a2/creations"] = []string{`{"id":"a2","state":"failed","err_code":"CreationPolicyViolation"}`}
	data, dl := t.TempDir(), t.TempDir()
	exec := func(args ...string) run {
		return execute("", append(args, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)...)
	}
	for i := 0; i < 2; i++ {
		if r := exec("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p"); r.code != 0 {
			t.Fatal(r.err)
		}
	}
	r := exec("watch", "--download-dir", dl)
	for _, want := range []string{"following 2 task(s)", "a1: processing", "a1: success", "a2: failed (CreationPolicyViolation: The generated result was withheld"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("watch output lacks %q:\n%s", want, r.out)
		}
	}
	if r.code != 1 || !strings.Contains(r.err, "1 task(s) failed") {
		t.Errorf("exit %d: %s", r.code, r.err)
	}
	if files, _ := filepath.Glob(filepath.Join(dl, "*_text2video_a1_1.mp4")); len(files) != 1 {
		t.Errorf("downloads: %v", files)
	}
	if r := exec("watch"); !strings.Contains(r.out, "No task is in flight.") {
		t.Errorf("second watch: %+v", r)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"create"}, "create needs an OPERATION (reference2video, img2video"},
		{[]string{"get"}, "get needs a TASK_ID"},
		{[]string{"history", "resolve", "1"}, "see clapper history resolve --help"},
		{[]string{"history", "--state", "done"}, `--state done: a state is one of created, queueing`},
		{[]string{"history", "--search", "state:done"}, `state:done: a state is one of created, queueing`},
		{[]string{"history", "--search", "op:nope"}, `--search: op:nope`},
		{[]string{"models", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"resubmit", "x"}, "want the number in the first column"},
		{[]string{"histroy"}, `unknown command "histroy"`},
		{[]string{"history", "abandon", "7"}, "no request #7 in history"},
		{[]string{"history", "abandon", "0"}, "#: want the number in the first column of clapper history, got \"0\""},
		{[]string{"history", "abandon", "#7"}, "no request #7 in history"}, // #7 as get and --from take it
		{[]string{"tag", "#7", "x"}, "no request #7"},
		{[]string{"get", "#abc"}, "#abc: want #N"},
		{[]string{"get", "a/b"}, `task id "a/b" holds '/'`},
		{[]string{"get", "1", "--api-key", "k"}, "no service address"},
	} {
		r := runCLIData(t, t.TempDir(), c.args...)
		if r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.err, c.want)
		}
	}
}

func TestSpeechWaitSavesTheAudio(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/files/speech.wav" {
			w.Header().Set("Content-Type", "audio/wav")
			io.WriteString(w, "RIFF....WAVE")
			return
		}
		svc.ServeHTTP(w, r)
	}))
	defer srv.Close()
	svc.answers["POST /ent/v2/audio-tts"] = []string{`{"task_id":"s1","state":"success","file_url":"` + srv.URL + `/files/speech.wav","credits":1}`}
	dl := t.TempDir()
	r := execute("", "create", "audio-tts", "--set", "text=hello", "--set", "voice_setting_voice_id=v1", "--wait",
		"--download-dir", dl, "--base-url", srv.URL, "--api-key", "k", "--data-dir", t.TempDir())
	if r.code != 0 {
		t.Fatal(r.err)
	}
	if strings.Count(r.out, "audio-tts task s1: success") != 1 {
		t.Errorf("output %q", r.out)
	}
	if files, _ := filepath.Glob(filepath.Join(dl, "*_audio-tts_s1_1.wav")); len(files) != 1 {
		t.Errorf("saved %v; stderr %s", files, r.err)
	}
}

// A result that cannot be saved ends create --wait with exit 1, naming the
// result by its number and saying how many were not saved; the results
// that could be saved are saved.
func TestCreateWaitSaysWhichResultsWereNotSaved(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/reference2image": {`{"task_id":"w2","state":"created","credits":8}`}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/files/1.png" {
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, "\x89PNG\r\n\x1a\n")
			return
		}
		svc.ServeHTTP(w, r) // /files/2.png: 404
	}))
	defer srv.Close()
	svc.answers["GET /ent/v2/tasks/w2/creations"] = []string{`{"id":"w2","state":"success","credits":8,"creations":[` +
		`{"id":"a","url":"` + srv.URL + `/files/1.png"},{"id":"b","url":"` + srv.URL + `/files/2.png"}]}`}
	dl := t.TempDir()
	r := execute("", "create", "reference2image", "--set", "model=svcq2", "--set", "prompt=a cat", "--wait",
		"--download-dir", dl, "--base-url", srv.URL, "--api-key", "k", "--data-dir", t.TempDir())
	if r.code != 1 || !strings.Contains(r.err, "result 2 of task w2 not saved") || !strings.Contains(r.err, "1 result file(s) could not be saved") {
		t.Errorf("a result that cannot be saved: exit %d\n%s", r.code, r.err)
	}
	if saved, _ := filepath.Glob(filepath.Join(dl, "*.png")); len(saved) != 1 || strings.Contains(r.err, "result 1 of") {
		t.Errorf("the result that could be saved: %v\n%s", saved, r.err)
	}
}
