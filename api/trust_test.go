package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Issue 19.6: a redirect to another port (or scheme, or host) is refused,
// so the Authorization header never reaches a server the user did not name.
func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	var leaked atomic.Int32
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		w.Write([]byte(`{"id":"1","state":"success","err_code":"","credits":1}`))
	}))
	defer thief.Close()
	var same atomic.Int32
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/moved/") {
			same.Add(1)
			w.Write([]byte(`{"id":"1","state":"success","err_code":"","credits":1}`))
			return
		}
		if strings.Contains(r.URL.Path, "/tasks/2/") {
			http.Redirect(w, r, "/moved/2", http.StatusTemporaryRedirect)
			return
		}
		http.Redirect(w, r, thief.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer svc.Close()
	c, err := NewClient(svc.URL, "secret-key-123456", WithRetry(RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "port") || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("redirect to another port: err %v, want a refusal naming the port", err)
	}
	if leaked.Load() != 0 {
		t.Error("the API key reached the server on the other port")
	}
	// A redirect on the same origin is still followed.
	if _, err := c.Get(context.Background(), "2"); err != nil || same.Load() != 1 {
		t.Errorf("same-origin redirect: %v (%d reads)", err, same.Load())
	}
	// A transport given by the caller is guarded the same way.
	c2 := c.With(WithHTTPClient(&http.Client{}))
	if _, err := c2.Get(context.Background(), "1"); err == nil || leaked.Load() != 0 {
		t.Errorf("with a caller's http client: err %v, leaked %d", err, leaked.Load())
	}
}

func TestRedirectChangeNamesWhatChanged(t *testing.T) {
	for from, want := range map[string]string{
		"https://svc.example/x -> http://svc.example/x":      "scheme",
		"https://svc.example/x -> https://evil.example/x":    "host",
		"https://svc.example/x -> https://svc.example:8443/": "port",
		"http://svc.example/x -> http://svc.example:80/y":    "",
	} {
		a, b, _ := strings.Cut(from, " -> ")
		ra, _ := http.NewRequest(http.MethodGet, a, nil)
		rb, _ := http.NewRequest(http.MethodGet, b, nil)
		got := ""
		if err := sameOrigin(rb, ra); err != nil {
			got = err.Error()
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want mention of %q", from, got, want)
		}
	}
}

// Issue 19.15: a 30 MB error message is cut to a readable length, and the
// cut says how long the whole was.
func TestHugeErrorMessageIsCapped(t *testing.T) {
	huge := strings.Repeat("x", 30<<20)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		w.Write([]byte(`{"code":400,"reason":"` + strings.Repeat("R", 1000) + `","message":"` + huge + `","metadata":{"trace_id":"` + strings.Repeat("t", 1000) + `"}}`))
	}))
	defer svc.Close()
	c, _ := NewClient(svc.URL, "k", WithRetry(RetryPolicy{Attempts: 1}))
	_, err := c.Get(context.Background(), "1")
	e, ok := AsError(err)
	if !ok {
		t.Fatalf("err %v", err)
	}
	if n := len(err.Error()); n > 2*MaxMessage {
		t.Errorf("error text is %d bytes", n)
	}
	if len(e.Message) > MaxMessage+100 || !strings.Contains(e.Message, "30 MB") {
		t.Errorf("message of %d bytes ending %q; want it capped, naming the whole size", len(e.Message), e.Message[max(0, len(e.Message)-80):])
	}
	if len(e.Reason) > 120 || len(e.TraceID) > 120 {
		t.Errorf("reason %d bytes, trace id %d bytes", len(e.Reason), len(e.TraceID))
	}
}

func TestHugeErrCodesAreCapped(t *testing.T) {
	huge := strings.Repeat("E", 1<<20)
	var r TaskResult
	if err := r.UnmarshalJSON([]byte(`{"id":"1","state":"failed","err_code":"` + huge + `"}`)); err != nil || len(r.ErrCode) > 120 {
		t.Errorf("task err_code kept %d bytes (%v)", len(r.ErrCode), err)
	}
	var j OneClickJob
	if err := j.UnmarshalJSON([]byte(`{"id":"1","state":"failed","err_code":"` + huge + `","err_msg":"` + huge + `"}`)); err != nil || len(j.ErrCode) > 120 || len(j.ErrMsg) > MaxMessage+100 {
		t.Errorf("job err_code %d bytes, err_msg %d bytes (%v)", len(j.ErrCode), len(j.ErrMsg), err)
	}
}
