package api

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// An upload id the service answers with characters a path cannot hold
// as they are ("u 1/x?y") is finished at its one escaped segment, never
// at another path (a slash would name a different resource).
func TestUploadIDIsEscapedInTheFinishPath(t *testing.T) {
	var finishedAt string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch {
		case r.URL.Path == PathUploads:
			io.WriteString(w, `{"id":"u 1/x?y","put_url":"`+srv.URL+`/storage"}`)
		case r.URL.Path == "/storage":
			w.Header().Set("ETag", `"abc"`)
		default:
			finishedAt = r.URL.EscapedPath()
			io.WriteString(w, `{"uri":"ssupload:?id=u1"}`)
		}
	}))
	t.Cleanup(srv.Close)
	cl, _ := NewClient(srv.URL, "key-12345678")
	if _, err := cl.Upload(context.Background(), []byte("png bytes"), "image/png"); err != nil {
		t.Fatal(err)
	}
	if want := PathUploads + "/u%201%2Fx%3Fy/finish"; finishedAt != want {
		t.Errorf("the upload was finished at %q, want %q", finishedAt, want)
	}
}
