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
