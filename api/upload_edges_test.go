package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// storage serves the upload flow with the put_url given (relative ones on
// the same server) and records what the storage and the finish received.
type storage struct {
	putURL   string
	uri      string        // the finish's uri ("" for ssupload:?id=u1)
	hold     chan struct{} // when set, the PUT waits for it
	mu       sync.Mutex
	stored   string
	finished string
}

func (s *storage) start(t *testing.T) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case r.URL.Path == PathUploads:
			put := s.putURL
			if strings.HasPrefix(put, "/") {
				put = srv.URL + put
			}
			io.WriteString(w, `{"id":"u1","put_url":"`+put+`"}`)
		case r.URL.Path == "/storage/u1":
			if s.hold != nil {
				s.mu.Unlock()
				<-s.hold
				s.mu.Lock()
			}
			s.stored = string(b)
			w.Header().Set("ETag", `"abc"`)
		case r.URL.Path == PathUploads+"/u1/finish":
			s.finished = string(b)
			uri := s.uri
			if uri == "" {
				uri = "ssupload:?id=u1"
			}
			json.NewEncoder(w).Encode(map[string]string{"uri": uri})
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The bytes reach the storage and its etag reaches the finish; a client
// without a timeout (0) waits as long as the storage takes.
func TestUploadStoresTheBytesAndFinishesWithTheEtag(t *testing.T) {
	s := &storage{putURL: "/storage/u1"}
	srv := s.start(t)
	cl, _ := NewClient(srv.URL, "key-12345678", WithTimeout(0))
	uri, err := cl.Upload(context.Background(), []byte("png bytes"), "image/png")
	if err != nil || uri != "ssupload:?id=u1" {
		t.Fatalf("upload: %q %v", uri, err)
	}
	if s.stored != "png bytes" || s.finished != `{"etag":"\"abc\""}` {
		t.Errorf("storage got %q, finish got %q", s.stored, s.finished)
	}
}

// A put_url that is not http(s) is refused before anything is sent to it.
func TestUploadRefusesAPutURLThatIsNotHTTP(t *testing.T) {
	for _, put := range []string{"file:///etc/passwd", "ftp://storage.example/u1"} {
		srv := (&storage{putURL: put}).start(t)
		cl, _ := NewClient(srv.URL, "key-12345678")
		if _, err := cl.Upload(context.Background(), []byte("png bytes"), "image/png"); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
			t.Errorf("put_url %s: %v", put, err)
		}
	}
}

// The client's timeout bounds the PUT to the storage too.
func TestUploadPutHonoursTheTimeout(t *testing.T) {
	s := &storage{putURL: "/storage/u1", hold: make(chan struct{})}
	srv := s.start(t)
	defer close(s.hold)
	cl, _ := NewClient(srv.URL, "key-12345678", WithTimeout(100*time.Millisecond))
	done := make(chan error, 1)
	go func() {
		_, err := cl.Upload(context.Background(), []byte("png bytes"), "image/png")
		done <- err
	}()
	select {
	case err := <-done:
		var ne *NetworkError
		if !errors.As(err, &ne) {
			t.Errorf("a storage that never answers: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the PUT outlived the client's timeout")
	}
}

// Trust round two: a put_url with credentials, or plain http when the
// service is https, gets no bytes; a finish uri not of the form
// ssupload:?id=ID is not used; a storage that redirects the upload is
// refused as what it is.
func TestUploadAnswersAreChecked(t *testing.T) {
	cl, _ := NewClient("https://api.example", "key-12345678")
	for put, want := range map[string]string{
		"https://user:pw@storage.example/u1": "carries credentials",
		"http://storage.example/u1":          "plain http",
		"https:///u1":                        "not an http(s) URL",
	} {
		if err := cl.checkPutURL(put); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("put_url %s: %v, want %q", put, err, want)
		}
	}
	if err := cl.checkPutURL("https://storage.example/u1?sig=x"); err != nil {
		t.Errorf("a presigned https put_url: %v", err)
	}
	for _, uri := range []string{"ssupload:?id=u1\nforged", "https://evil.example/x.png", "ssupload:?id=", "ssupload:?id=a/b"} {
		s := &storage{putURL: "/storage/u1", uri: uri}
		srv := s.start(t)
		cl, _ := NewClient(srv.URL, "key-12345678")
		if got, err := cl.Upload(context.Background(), []byte("png"), "image/png"); err == nil || !strings.Contains(err.Error(), "not a uri of the form") {
			t.Errorf("finish uri %q: %q %v", uri, got, err)
		}
	}
	redirecting := httptest.NewServer(http.RedirectHandler("https://elsewhere.example/u1", http.StatusTemporaryRedirect))
	defer redirecting.Close()
	s := &storage{putURL: redirecting.URL + "/u1"}
	srv := s.start(t)
	cl, _ = NewClient(srv.URL, "key-12345678")
	if _, err := cl.Upload(context.Background(), []byte("png"), "image/png"); err == nil || !strings.Contains(err.Error(), "redirected the upload") || strings.Contains(err.Error(), "API key") {
		t.Errorf("a storage redirect: %v", err)
	}
}
