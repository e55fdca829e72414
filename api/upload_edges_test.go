package api

import (
	"context"
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
			io.WriteString(w, `{"uri":"ssupload:?id=u1"}`)
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
