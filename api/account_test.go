package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Both forms the account has been answered in decode: the documented list
// and the flat remains fields seen live.
func TestCreditsDecodeBothForms(t *testing.T) {
	for _, c := range []struct {
		body                   string
		remaining              int
		concurrency            bool
		running, queued, limit int
	}{
		{`{"remaining_credits":[{"type":"general","credit_remain":120,"concurrency_limit":5,"current_concurrency":2,"queue_count":1},{"type":"bonus","credit_remain":"30"}],"packages":[]}`, 150, true, 2, 1, 5},
		{`{"remains":880}`, 880, false, 0, 0, 0},
		{`{"general_remains":100,"exclusive_remains":25.0}`, 125, false, 0, 0, 0},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != PathCredits || r.Header.Get("Authorization") != "Token key-12345678" {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			_, _ = w.Write([]byte(c.body))
		}))
		cl, _ := NewClient(srv.URL, "key-12345678")
		got, err := cl.Credits(context.Background())
		srv.Close()
		if err != nil || got.Remaining != c.remaining || got.HasConcurrency != c.concurrency || got.Running != c.running || got.Queued != c.queued || got.Limit != c.limit {
			t.Errorf("%s: %+v %v", c.body, got, err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"balance":3}`)) }))
	defer srv.Close()
	cl, _ := NewClient(srv.URL, "key-12345678")
	if _, err := cl.Credits(context.Background()); err == nil || !strings.Contains(err.Error(), "names no remaining credits") {
		t.Errorf("an answer without credits: %v", err)
	}
}

// The image goes to the put_url without the API key: the key goes to the
// service and nowhere else.
func TestUploadKeepsTheKeyFromStorage(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == PathUploads:
			_, _ = w.Write([]byte(`{"id":"u1","put_url":"` + srv.URL + `/storage/u1","expires_at":"x"}`))
		case r.URL.Path == "/storage/u1":
			if r.Header.Get("Authorization") != "" || r.Header.Get("Content-Type") != "image/png" {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			w.Header().Set("ETag", `"abc"`)
		case r.URL.Path == PathUploads+"/u1/finish":
			_, _ = w.Write([]byte(`{"uri":"ssupload:?id=u1"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	cl, _ := NewClient(srv.URL, "key-12345678")
	uri, err := cl.Upload(context.Background(), []byte("png bytes"), "image/png")
	if err != nil || uri != "ssupload:?id=u1" {
		t.Errorf("upload: %q %v", uri, err)
	}
}
