package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recordSleep captures the waits instead of sleeping.
func recordSleep(waits *[]time.Duration) Option {
	return WithSleep(func(_ context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return nil
	})
}

func newTestClient(t *testing.T, h http.HandlerFunc, opts ...Option) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, "secret-key-123", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCreateSendsAuthAndDecodesEcho(t *testing.T) {
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ent/v2/img2video" || r.Method != http.MethodPost {
			t.Errorf("got %s %s", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Token secret-key-123" {
			t.Errorf("Authorization = %q", got)
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if _, ok := body["duration"]; ok {
			t.Error("unset duration was sent")
		}
		io.WriteString(w, `{"task_id":"8123","state":"created","model":"svcq1","images":"https://x/a.png","duration":5,"seed":42,"credits":20,"created_at":"2025-04-14T15:41:33.695830549Z","moderation":{"x":1}}`)
	})
	task, err := c.Create(context.Background(), OpImg2Video, Img2VideoRequest{Model: "svcq1", Images: []string{"https://x/a.png"}})
	if err != nil {
		t.Fatal(err)
	}
	if task.Identifier() != "8123" || task.State != StateCreated || len(task.Images) != 1 || task.Seed != 42 || task.Credits != 20 || len(task.Raw) == 0 {
		t.Errorf("task = %+v", task)
	}
}

func TestOneClickCreationAnswersID(t *testing.T) {
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ent/v2/one-click/premium_mv" {
			t.Errorf("path %s", r.URL.Path)
		}
		io.WriteString(w, `{"id":"777"}`)
	})
	task, err := c.Create(context.Background(), OpPremiumMV, PremiumMVRequest{Mode: "dance", AudioURL: "https://x/a.mp3"})
	if err != nil || task.Identifier() != "777" {
		t.Fatalf("task %+v, err %v", task, err)
	}
}

func TestRejectionKeepsReasonFieldsAndTrace(t *testing.T) {
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(TraceHeader, "hdr-trace")
		w.WriteHeader(400)
		io.WriteString(w, `{"code":400,"reason":"FieldInvalid","message":"invalid field: duration","metadata":{"trace_id":"body-trace","fields":["duration"]}}`)
	})
	_, err := c.Create(context.Background(), OpText2Video, map[string]any{"model": "svcq1"})
	e, ok := AsError(err)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	if e.Status != 400 || e.Reason != ReasonFieldInvalid || e.TraceID != "body-trace" || len(e.Fields) != 1 {
		t.Errorf("error = %+v", e)
	}
	if msg := err.Error(); !strings.Contains(msg, "invalid field: duration") || !strings.Contains(msg, "body-trace") {
		t.Errorf("message %q lacks message or trace id", msg)
	}
	if e.Explanation() == "" || strings.Contains(e.Explanation(), "rejected the request (") {
		t.Errorf("no plain explanation for FieldInvalid: %q", e.Explanation())
	}
}

func TestTraceFromHeaderWhenBodyIsNotJSON(t *testing.T) {
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(TraceHeader, "hdr-trace")
		w.WriteHeader(404)
		io.WriteString(w, "no such thing")
	})
	_, err := c.Get(context.Background(), "1")
	e, _ := AsError(err)
	if e == nil || e.TraceID != "hdr-trace" || e.Message != "no such thing" {
		t.Fatalf("err = %#v", err)
	}
}

func TestGetRetriesServerErrorsAndHonoursRetryAfter(t *testing.T) {
	var calls atomic.Int32
	var waits []time.Duration
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.WriteHeader(503)
		case 2:
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			io.WriteString(w, `{"code":429,"reason":"TooManyRequests","message":"slow down"}`)
		default:
			io.WriteString(w, `{"id":"5","state":"success","err_code":"","credits":"12","creations":[{"id":"c1","url":"https://x/1.mp4","cover_url":"https://x/1.jpg"}]}`)
		}
	}, recordSleep(&waits), WithRetry(RetryPolicy{Attempts: 4, Base: time.Second, Max: 8 * time.Second, MaxRetryAfter: time.Minute, Jitter: func() float64 { return 0.5 }}))
	res, err := c.Get(context.Background(), "5")
	if err != nil {
		t.Fatal(err)
	}
	if res.Credits != 12 || len(res.Creations) != 1 || res.Creations[0].CoverURL == "" {
		t.Errorf("result = %+v", res)
	}
	if len(waits) != 2 || waits[0] != 750*time.Millisecond || waits[1] != 7*time.Second {
		t.Errorf("waits = %v, want [750ms 7s]", waits)
	}
}

func TestGetGivesUpAfterBoundedAttempts(t *testing.T) {
	var calls atomic.Int32
	var waits []time.Duration
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(500)
	}, recordSleep(&waits))
	_, err := c.Get(context.Background(), "5")
	if e, ok := AsError(err); !ok || e.Status != 500 {
		t.Fatalf("err = %v", err)
	}
	if calls.Load() != int32(DefaultRetry.Attempts) || len(waits) != DefaultRetry.Attempts-1 {
		t.Errorf("calls %d waits %v", calls.Load(), waits)
	}
	for i := 1; i < len(waits); i++ {
		if waits[i] < waits[i-1]/2 {
			t.Errorf("backoff shrank: %v", waits)
		}
	}
}

func TestLongRetryAfterIsLeftToTheCaller(t *testing.T) {
	var calls atomic.Int32
	var waits []time.Duration
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(429)
	}, recordSleep(&waits))
	_, err := c.Get(context.Background(), "5")
	e, ok := AsError(err)
	if !ok || e.Status != 429 || e.RetryAfter != "3600" || calls.Load() != 1 {
		t.Fatalf("err %v calls %d", err, calls.Load())
	}
}

func TestCreationIsNeverRetriedOnceSent(t *testing.T) {
	for _, status := range []int{500, 502, 429} {
		var calls atomic.Int32
		var waits []time.Duration
		c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(status)
		}, recordSleep(&waits))
		if _, err := c.Create(context.Background(), OpText2Video, map[string]any{}); err == nil {
			t.Fatalf("%d: no error", status)
		}
		if calls.Load() != 1 {
			t.Errorf("%d: creation sent %d times", status, calls.Load())
		}
	}
	// A connection cut after the request was sent: not retried either.
	var calls atomic.Int32
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}, recordSleep(new([]time.Duration)))
	if _, err := c.Create(context.Background(), OpText2Video, map[string]any{}); err == nil || calls.Load() != 1 {
		t.Errorf("cut connection: err %v, calls %d", err, calls.Load())
	}
}

func TestCreationRetriedWhenConnectionRefused(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens: dials fail before anything is sent
	var waits []time.Duration
	c, _ := NewClient("http://"+addr, "k", recordSleep(&waits))
	_, err := c.Create(context.Background(), OpText2Video, map[string]any{})
	if err == nil || len(waits) != DefaultRetry.Attempts-1 {
		t.Errorf("err %v waits %v", err, waits)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		io.WriteString(w, `{"code":401,"reason":"Unauthorized","message":"bad token `+strings.TrimPrefix(r.Header.Get("Authorization"), "Token ")+`"}`)
	})
	_, err := c.Get(context.Background(), "1")
	if err == nil || strings.Contains(err.Error(), "secret-key-123") {
		t.Fatalf("key leaked or no error: %v", err)
	}
	e, ok := AsError(err)
	if !ok {
		t.Fatal("redaction lost the typed error")
	}
	if strings.Contains(e.Message, "secret-key-123") {
		t.Errorf("the key survives in the error's message field: %q", e.Message)
	}
	if _, err := NewClient("https://user:secret-key-123@host", "secret-key-123"); err == nil || strings.Contains(err.Error(), "secret-key-123") {
		t.Errorf("credentials in base URL: %v", err)
	}
}

func TestContextCancelStopsRetries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		cancel()
		w.WriteHeader(503)
	})
	if _, err := c.Get(ctx, "1"); err == nil {
		t.Fatal("no error")
	}
}

func TestCancelAndMultiScenePaths(t *testing.T) {
	var paths []string
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.Method+" "+r.URL.Path)
		switch {
		case strings.HasSuffix(r.URL.Path, "/cancel"):
			io.WriteString(w, `{}`)
		case r.Method == http.MethodGet:
			io.WriteString(w, oneClickRecord)
		default:
			io.WriteString(w, `{"id":"new-job"}`)
		}
	})
	ctx := context.Background()
	if err := c.Cancel(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	job, err := c.GetOneClick(ctx, "j1")
	if err != nil {
		t.Fatal(err)
	}
	if len(job.JobRecords) != 2 || job.JobRecords[0].Jobs[1].MVGenerateVideoInput.Prompt != "a brighter sky" || len(job.JobRecords[0].Jobs[0].MVGenerateVideoInput.SignedImages) != 1 {
		t.Errorf("job = %+v", job)
	}
	if id, err := c.EditScene(ctx, "j1", EditSceneRequest{JobID: "s1", Prompt: "p"}); err != nil || id != "new-job" {
		t.Errorf("edit: %s %v", id, err)
	}
	if id, err := c.Compose(ctx, "j1", ComposeRequest{JobIDs: []string{"s1"}}); err != nil || id != "new-job" {
		t.Errorf("compose: %s %v", id, err)
	}
	want := "POST /ent/v2/tasks/t1/cancel,GET /ent/v2/one-click/general_one_click/j1,POST /ent/v2/one-click/general_one_click/j1/edit,POST /ent/v2/one-click/general_one_click/j1/compose"
	if got := strings.Join(paths, ","); got != want {
		t.Errorf("paths\n got %s\nwant %s", got, want)
	}
}

const oneClickRecord = `{"id":"j1","type":"one_click","creator_id":"u1","state":"success","input":{"prompt":"x"},
"job_records":[{"type":"generate_video","index":0,"jobs":[
  {"id":"s1","type":"generate_video","input":"{}","output":"","state":"success","err_code":"","err_msg":"","signed_url":"https://x/s1.mp4","index":0,
   "mv_generate_video_input":{"duration":5,"prompt":"a sky","lyric_text":"","signed_images":"https://x/i.png"}},
  {"id":"s2","type":"generate_video","state":"processing","index":0,"mv_generate_video_input":{"duration":5.0,"prompt":"a brighter sky","lyric_text":"","signed_images":[]}}]},
 {"type":"compose","index":1,"jobs":[{"id":"c1","type":"compose","state":"success","signed_url":"https://x/final.mp4","index":1}]}],
"created_at":"2025-04-14T15:41:33Z","updated_at":"2025-04-14T15:45:00Z","err_code":"","err_msg":"","signed_url":"https://x/final.mp4"}`

func TestDecodesFailedTaskAndNullCreations(t *testing.T) {
	var r TaskResult
	if err := json.Unmarshal([]byte(`{"id":"9","state":"failed","err_code":"CreationPolicyViolation","credits":0,"creations":null,"progress":"40"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.State != StateFailed || r.ErrCode != ReasonCreationPolicyViolation || r.Creations != nil || r.Progress == nil || *r.Progress != 40 {
		t.Errorf("r = %+v", r)
	}
	var bad TaskResult
	if err := json.Unmarshal([]byte(`{"credits":1.5}`), &bad); err == nil {
		t.Error("fractional credits accepted as a whole number")
	}
}

func TestCallbackSignatureRoundTrip(t *testing.T) {
	now := time.Date(2025, 4, 14, 15, 41, 33, 0, time.UTC)
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9/hook?a=1", strings.NewReader(`{}`))
	SignCallback(req, "tok", now)
	if err := VerifyCallback(req, "tok", now.Add(time.Minute), 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := VerifyCallback(req, "other", now, 5*time.Minute); !errors.Is(err, ErrBadSignature) {
		t.Errorf("forged key accepted: %v", err)
	}
	if err := VerifyCallback(req, "tok", now.Add(10*time.Minute), 5*time.Minute); !errors.Is(err, ErrBadSignature) {
		t.Errorf("stale date accepted: %v", err)
	}
	// The signing string is exactly the documented one.
	want := CallbackSignature("tok", "POST", "/hook", "a=1", req.Header.Get("Date"), req.Header.Get(HeaderNonce))
	if req.Header.Get(HeaderSignature) != want || req.Header.Get("Date") != "Mon, 14 Apr 2025 15:41:33 GMT" {
		t.Errorf("headers %v", req.Header)
	}
	escaped := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9/a%20b/p%2Fq?x=1", nil)
	SignCallback(escaped, "tok", now)
	if want := CallbackSignature("tok", "POST", "/a%20b/p%2Fq", "x=1", escaped.Header.Get("Date"), escaped.Header.Get(HeaderNonce)); escaped.Header.Get(HeaderSignature) != want {
		t.Error("an escaped path is not signed as sent")
	}
	if err := VerifyCallback(escaped, "tok", now, time.Minute); err != nil {
		t.Errorf("escaped path: %v", err)
	}
	unsigned := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9/hook", nil)
	if err := VerifyCallback(unsigned, "tok", now, time.Minute); !errors.Is(err, ErrBadSignature) {
		t.Error("unsigned callback accepted")
	}
}

func TestKnownSignatureVector(t *testing.T) {
	// base64(HMAC-SHA256("tok", "POST\n/hook\n\nvidu\nD\nDate:D\nx-request-nonce:N\n")), computed independently with openssl.
	if got := CallbackSignature("tok", "POST", "/hook", "", "D", "N"); got != knownVector {
		t.Errorf("signature %s, want %s", got, knownVector)
	}
}

func TestEveryReasonHasStatusAndExplanation(t *testing.T) {
	for reason, status := range ReasonStatus {
		if status < 400 || Explain(reason, status) == "" || explanations[reason] == "" {
			t.Errorf("%s: status %d explanation %q", reason, status, explanations[reason])
		}
	}
	if len(ReasonStatus) < 29 {
		t.Errorf("only %d reasons known", len(ReasonStatus))
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{"": 0, "5": 5 * time.Second, "-3": 0, "soon": 0,
		"Wed, 01 Jan 2025 00:00:30 GMT": 30 * time.Second, "Tue, 31 Dec 2024 00:00:00 GMT": 0} {
		if got := ParseRetryAfter(in, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

const knownVector = "nfz+/Gm/yiOuxESXntyYXxpPjYg1plzPSSd9Dj/9KiM="

func TestCleanText(t *testing.T) {
	in := "ok\x1b[31mred\x1b[0m\r\x07bell\u009bC1\ttab\nline\x1b]0;title\x07"
	if got := CleanText(in); got != "okredbellC1\ttab\nline" {
		t.Errorf("CleanText = %q", got)
	}
}
