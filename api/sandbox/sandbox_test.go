package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/catalog"
)

var t0 = time.Date(2025, 4, 14, 15, 41, 33, 695830549, time.UTC)

const testToken = "test-token"

// harness is a sandbox on a fake clock behind a loopback HTTP server.
type harness struct {
	t      *testing.T
	clock  *FakeClock
	srv    *Server
	ts     *httptest.Server
	client *api.Client
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	clock, ok := cfg.Clock.(*FakeClock)
	if !ok {
		clock = NewFakeClock(t0)
		cfg.Clock = clock
	}
	if cfg.Seed == 0 {
		cfg.Seed = 42
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	c, err := api.NewClient(ts.URL, testToken, api.WithRetry(api.RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, clock: clock, srv: srv, ts: ts, client: c}
}

// advance moves the fake clock and lets the sandbox act on it.
func (h *harness) advance(d time.Duration) {
	h.clock.Advance(d)
	h.srv.Advance()
}

// call sends a raw request; body is nil, a string sent as is, or a value
// sent as JSON.
func (h *harness) call(method, path string, body any, header map[string]string) (int, http.Header, []byte) {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, h.ts.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Token "+testToken)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.StatusCode, res.Header, raw
}

// create posts a creation that must succeed and returns its answer.
func (h *harness) create(op api.Operation, body map[string]any) map[string]any {
	h.t.Helper()
	status, _, raw := h.call(http.MethodPost, op.Path(), body, nil)
	if status != http.StatusOK {
		h.t.Fatalf("create %s: HTTP %d: %s", op, status, raw)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		h.t.Fatal(err)
	}
	return m
}

func (h *harness) createID(op api.Operation, body map[string]any) string {
	h.t.Helper()
	m := h.create(op, body)
	if id, ok := m["task_id"].(string); ok {
		return id
	}
	return m["id"].(string)
}

func (h *harness) get(id string) *api.TaskResult {
	h.t.Helper()
	r, err := h.client.Get(context.Background(), id)
	if err != nil {
		h.t.Fatalf("get %s: %v", id, err)
	}
	return r
}

// until advances the clock second by second until the task reaches state,
// failing after limit.
func (h *harness) until(id, state string, limit time.Duration) *api.TaskResult {
	h.t.Helper()
	for waited := time.Duration(0); ; waited += time.Second {
		r := h.get(id)
		if r.State == state {
			return r
		}
		if waited > limit || (api.IsTerminal(r.State) && r.State != state) {
			h.t.Fatalf("task %s is %s after %s, want %s", id, r.State, waited, state)
		}
		h.advance(time.Second)
	}
}

// fetch downloads a result URL.
func (h *harness) fetch(url string) (int, []byte) {
	h.t.Helper()
	res, err := h.ts.Client().Get(url)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.StatusCode, b
}

const img = "https://example.com/a.png"

// samples are valid requests of every creation operation.
var samples = map[api.Operation]map[string]any{
	api.OpReference2Video:   {"model": "svcq3", "images": []string{img}, "prompt": "a cat on a roof", "duration": 5},
	api.OpImg2Video:         {"model": "svcq3-turbo", "images": []string{img}, "prompt": "the cat walks"},
	api.OpText2Video:        {"model": "svcq3-pro", "prompt": "a city at night", "duration": 5, "aspect_ratio": "16:9", "resolution": "720p"},
	api.OpStartEnd2Video:    {"model": "svcq3-pro", "images": []string{img, "https://example.com/b.png"}, "prompt": "morph"},
	api.OpReference2Image:   {"model": "svcq2", "prompt": "a red apple", "aspect_ratio": "1:1"},
	api.OpAudioClone:        {"audio_url": "https://example.com/v.mp3", "voice_id": "myvoice01", "text": "Hello there."},
	api.OpAudioTTS:          {"text": "Hello there.", "voice_setting_voice_id": "professional_host"},
	api.OpTiming2Audio:      {"model": "audio1.0", "duration": 5, "timing_prompts": []map[string]any{{"from": 0, "to": 2, "prompt": "rain"}}},
	api.OpLipSync:           {"video_url": "https://example.com/v.mp4", "text": "hello"},
	api.OpTemplateStory:     {"story": "love_story", "images": []string{img}},
	api.OpTrendingReplicate: {"video_url": "https://example.com/v.mp4", "prompt": "with our product"},
	api.OpMV:                {"images": []string{img}, "audio_url": "https://example.com/s.mp3"},
	api.OpPremiumMV:         {"premium_mv_mode": "perform", "images": []string{img, img, img, img, img, img}, "audio_url": "https://example.com/s.mp3"},
	api.OpGeneralOneClick:   {"images": []string{img}, "prompt": "a day at the sea", "duration": 25},
	api.OpExtend:            {"model": "svcq2-pro", "video_url": "https://example.com/v.mp4", "prompt": "the camera pulls back", "duration": 4},
	api.OpMultiframe: {"model": "svcq2-turbo", "start_image": img, "image_settings": []map[string]any{
		{"key_image": "https://example.com/k1.png", "prompt": "it turns", "duration": 3},
		{"key_image": "https://example.com/k2.png", "duration": 4}}},
	api.OpUpscaleNew:     {"video_url": "https://example.com/v.mp4", "upscale_resolution": "4K"},
	api.OpText2Audio:     {"model": "audio1.0", "prompt": "birds at dawn", "duration": 6.5},
	api.OpTemplate2Video: {"template": "hugging", "images": []string{img, "https://example.com/b.png"}, "prompt": "they hug"},
}

func sample(op api.Operation, extra map[string]any) map[string]any {
	m := map[string]any{}
	for k, v := range samples[op] {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

var createdAtPattern = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$`)

func TestEveryCreationPathAnswersLikeTheService(t *testing.T) {
	h := newHarness(t, Config{})
	for _, op := range api.Operations() {
		t.Run(string(op), func(t *testing.T) {
			status, hdr, raw := h.call(http.MethodPost, op.Path(), samples[op], nil)
			if status != http.StatusOK {
				t.Fatalf("HTTP %d: %s", status, raw)
			}
			if hdr.Get(api.TraceHeader) == "" {
				t.Error("no trace id header on success")
			}
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			if _, ok := m["code"]; ok {
				t.Errorf("successful body carries code: %s", raw)
			}
			if op.IsOneClick() {
				if len(m) != 1 || m["id"] == "" {
					t.Fatalf("one-click answer = %s, want {id}", raw)
				}
				return
			}
			id, _ := m["task_id"].(string)
			if !regexp.MustCompile(`^[1-9]\d{17}$`).MatchString(id) {
				t.Errorf("task_id %q is not an 18-digit id", id)
			}
			wantState := api.StateCreated
			if op.IsSynchronous() {
				wantState = api.StateSuccess
			}
			if m["state"] != wantState {
				t.Errorf("state = %v, want %s", m["state"], wantState)
			}
			if c, _ := m["credits"].(float64); c <= 0 {
				t.Errorf("credits = %v, want > 0", m["credits"])
			}
			if s, _ := m["created_at"].(string); !createdAtPattern.MatchString(s) {
				t.Errorf("created_at = %q, want ISO 8601 UTC with 9 fractional digits", s)
			}
			if isSeeded(op) {
				if s, _ := m["seed"].(float64); s <= 0 {
					t.Errorf("seed = %v, want the random seed actually used", m["seed"])
				}
			}
			if op == api.OpText2Video && (m["prompt"] != "a city at night" || m["model"] != "svcq3-pro") {
				t.Errorf("echo lacks the parameters: %s", raw)
			}
		})
	}
}

func TestCreationEchoesDefaultsAndGivenSeed(t *testing.T) {
	h := newHarness(t, Config{})
	m := h.create(api.OpText2Video, map[string]any{"model": "svcq3-turbo", "prompt": "waves", "seed": 77})
	if m["seed"] != 77.0 {
		t.Errorf("seed = %v, want 77 as given", m["seed"])
	}
	for _, k := range []string{"duration", "aspect_ratio", "resolution"} {
		if _, ok := m[k]; !ok {
			t.Errorf("echo lacks the default %s: %v", k, m)
		}
	}
}

func TestEveryTaskIsReadableThroughCreations(t *testing.T) {
	h := newHarness(t, Config{})
	for _, op := range api.Operations() {
		body := samples[op]
		if slices.Contains(catalog.FieldNames(op), "payload") {
			body = sample(op, map[string]any{"payload": "ref-" + string(op)})
		}
		id := h.createID(op, body)
		r := h.get(id)
		if r.ID != id || r.State == "" || r.Payload != pStr(body, "payload") {
			t.Errorf("%s: GET creations = %+v", op, r)
		}
		if op == api.OpTrendingReplicate && r.Progress == nil {
			t.Errorf("trending-replicate result has no progress")
		}
	}
}

// rejection decodes an error body and checks its shape.
func rejection(t *testing.T, status int, hdr http.Header, raw []byte, wantStatus int, wantReason, wantField string) api.ErrorBody {
	t.Helper()
	var eb api.ErrorBody
	if err := json.Unmarshal(raw, &eb); err != nil {
		t.Fatalf("error body %s: %v", raw, err)
	}
	if status != wantStatus || eb.Code != status {
		t.Errorf("HTTP %d code %d, want %d: %s", status, eb.Code, wantStatus, raw)
	}
	if wantReason != "" && eb.Reason != wantReason {
		t.Errorf("reason %q, want %q: %s", eb.Reason, wantReason, raw)
	}
	if wantField != "" && !slices.Contains(eb.Metadata.Fields, wantField) {
		t.Errorf("fields %v do not name %q: %s", eb.Metadata.Fields, wantField, raw)
	}
	if strings.HasPrefix(eb.Reason, "Field") && !strings.Contains(eb.Message, wantField) {
		t.Errorf("message %q does not name %q", eb.Message, wantField)
	}
	if tr := hdr.Get(api.TraceHeader); tr == "" || tr != eb.Metadata.TraceID {
		t.Errorf("trace id header %q vs body %q", tr, eb.Metadata.TraceID)
	}
	return eb
}

func TestRejectionsUseTheServiceErrorBody(t *testing.T) {
	h := newHarness(t, Config{})
	big := `{"model":"svcq2","prompt":"` + strings.Repeat("x", maxBody) + `"}`
	tests := []struct {
		name          string
		method, path  string
		body          any
		header        map[string]string
		status        int
		reason, field string
	}{
		{"no token", "POST", "/ent/v2/text2video", samples[api.OpText2Video], map[string]string{"Authorization": ""}, 401, api.ReasonUnauthorized, "Authorization"},
		{"bearer scheme", "GET", "/ent/v2/tasks/1/creations", nil, map[string]string{"Authorization": "Bearer x"}, 401, api.ReasonUnauthorized, "Authorization"},
		{"empty token", "GET", "/ent/v2/tasks/1/creations", nil, map[string]string{"Authorization": "Token "}, 401, api.ReasonUnauthorized, "Authorization"},
		{"malformed json", "POST", "/ent/v2/text2video", `{"model":`, nil, 400, api.ReasonBadRequest, "body"},
		{"trailing data", "POST", "/ent/v2/text2video", `{"model":"svcq1","prompt":"x"} {}`, nil, 400, api.ReasonBadRequest, "body"},
		{"array body", "POST", "/ent/v2/text2video", `[1]`, nil, 400, api.ReasonBadRequest, "body"},
		{"empty body", "POST", "/ent/v2/text2video", ``, nil, 400, api.ReasonBadRequest, "body"},
		{"body over 20 MB", "POST", "/ent/v2/reference2image", big, nil, 400, api.ReasonBadRequest, "body"},
		{"unknown model", "POST", "/ent/v2/text2video", map[string]any{"model": "svcq9", "prompt": "x"}, nil, 400, api.ReasonFieldInvalid, "model"},
		{"missing model", "POST", "/ent/v2/text2video", map[string]any{"prompt": "x"}, nil, 400, api.ReasonFieldLacking, "model"},
		{"invalid duration", "POST", "/ent/v2/text2video", sample(api.OpText2Video, map[string]any{"duration": "abc"}), nil, 400, "", "duration"},
		{"missing prompt", "POST", "/ent/v2/text2video", map[string]any{"model": "svcq3-pro"}, nil, 400, api.ReasonFieldLacking, "prompt"},
		{"bad data URI", "POST", "/ent/v2/img2video", map[string]any{"model": "svcq3-turbo", "images": []string{"data:image/png;base64,@@@"}}, nil, 400, "", "images"},
		{"unknown path", "POST", "/ent/v2/nothing", samples[api.OpText2Video], nil, 404, api.ReasonNotFound, "path"},
		{"outside the service", "GET", "/v1/tasks", nil, nil, 404, api.ReasonNotFound, "path"},
		{"wrong method", "GET", "/ent/v2/text2video", nil, nil, 405, "", "method"},
		{"wrong method on creations", "POST", "/ent/v2/tasks/1/creations", "{}", nil, 405, "", "method"},
		{"unknown task", "GET", "/ent/v2/tasks/123/creations", nil, nil, 404, api.ReasonTaskNotFound, "id"},
		{"unknown job", "GET", "/ent/v2/one-click/general_one_click/123", nil, nil, 404, api.ReasonTaskNotFound, "id"},
		{"cancel unknown", "POST", "/ent/v2/tasks/123/cancel", "{}", nil, 404, api.ReasonTaskNotFound, "id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, hdr, raw := h.call(tc.method, tc.path, tc.body, tc.header)
			rejection(t, status, hdr, raw, tc.status, tc.reason, tc.field)
		})
	}
	// Nothing rejected was created.
	_, _, raw := h.call("GET", "/_sandbox/tasks", nil, nil)
	if string(raw) != "[]" {
		t.Errorf("rejected requests created tasks: %s", raw)
	}
}

func TestLiberalAboutWhatRealClientsVary(t *testing.T) {
	h := newHarness(t, Config{})
	for _, hdr := range []map[string]string{
		{"Content-Type": "Application/json"},
		{"Content-Type": ""},
		{"Content-Type": "application/json; charset=utf-8"},
		{"Authorization": "token " + testToken},
		{"Authorization": "TOKEN  " + testToken},
	} {
		status, _, raw := h.call("POST", "/ent/v2/reference2image/", samples[api.OpReference2Image], hdr)
		if status != 200 {
			t.Errorf("%v: HTTP %d: %s", hdr, status, raw)
			continue
		}
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		if status, _, raw := h.call("GET", "/ent/v2/tasks/"+m["task_id"].(string)+"/creations/", nil, hdr); status != 200 {
			t.Errorf("GET with trailing slash: HTTP %d: %s", status, raw)
		}
	}
}

func TestInspectionListsEveryTaskAndJob(t *testing.T) {
	h := newHarness(t, Config{})
	task := h.createID(api.OpText2Video, samples[api.OpText2Video])
	job := h.createID(api.OpGeneralOneClick, samples[api.OpGeneralOneClick])
	// No token needed: the inspection path is the sandbox's own.
	status, _, raw := h.call("GET", "/_sandbox/tasks", nil, map[string]string{"Authorization": ""})
	if status != 200 {
		t.Fatalf("HTTP %d: %s", status, raw)
	}
	var list []map[string]any
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[string]any{}
	for _, e := range list {
		if e["id"] == "" || e["operation"] == "" || e["state"] == "" {
			t.Errorf("entry lacks id, operation or state: %v", e)
		}
		seen[e["id"].(string)] = e
	}
	if seen[task]["operation"] != "text2video" || seen[task]["state"] != "created" {
		t.Errorf("task entry = %v", seen[task])
	}
	if seen[job]["operation"] != "general_one_click" || seen[job]["kind"] != kindJob {
		t.Errorf("job entry = %v", seen[job])
	}
	// 25 s makes three scenes and one composition besides the job and the task.
	if len(list) != 6 {
		t.Errorf("%d entries, want 6: %s", len(list), raw)
	}
}
