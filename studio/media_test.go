package studio

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Issue 16.2: a preview is fetched by the one downloader: once into the
// cache, under the picture cap, named by the policy, without credentials.
func TestPreviewIsFetchedOnceByTheDownloader(t *testing.T) {
	isolate(t)
	var pic bytes.Buffer
	png.Encode(&pic, image.NewGray(image.Rect(0, 0, 4, 4)))
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		if r.Header.Get("Authorization") != "" {
			t.Errorf("a preview fetch carried Authorization")
		}
		if r.URL.Path == "/huge.png" {
			w.Header().Set("Content-Length", "999999999")
			return
		}
		w.Header().Set("Content-Type", "text/html") // lies: the bytes are a PNG
		w.Write(pic.Bytes())
	}))
	defer srv.Close()
	data := t.TempDir()
	s, err := Open(context.Background(), Config{DataDir: data, Timeout: DefaultTimeout, SandboxSpeed: 1, RequestBudget: 4}, Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	p, err := s.Preview(ctx, "811/../x", srv.URL+"/cover.exe")
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(data, "previews", "811x.png") {
		t.Errorf("cached as %s", p)
	}
	if again, err := s.Preview(ctx, "811/../x", srv.URL+"/cover.exe"); err != nil || again != p || fetches.Load() != 1 {
		t.Errorf("second preview: %s %v after %d fetches, want the cached file after 1", again, err, fetches.Load())
	}
	// Asked for three times at once (a detail reopened while its cover
	// loads): fetched once.
	before := fetches.Load()
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); s.Preview(ctx, "812", srv.URL+"/c.png") }()
	}
	wg.Wait()
	if n := fetches.Load() - before; n != 1 {
		t.Errorf("three previews of one picture at once fetched it %d times", n)
	}
	if _, err := s.Preview(ctx, "big", srv.URL+"/huge.png"); err == nil || !strings.Contains(err.Error(), "larger than clapper saves") {
		t.Errorf("a picture over the cap: %v", err)
	}
}

// A picture that cannot be fetched says why, naming the host: its URL
// expired (the server answers 404), the host cannot be reached, or, for a
// task's picture, neither the URL nor a re-read of the task for a fresh
// one worked.
func TestPreviewFailuresSayWhy(t *testing.T) {
	isolate(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()
	s, err := Open(context.Background(), Config{DataDir: t.TempDir(), Timeout: DefaultTimeout, SandboxSpeed: 1, RequestBudget: 4}, Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const dead = "http://127.0.0.1:1"
	if _, err := s.Preview(ctx, "a", gone.URL+"/a.png"); err == nil || err.Error() != "the picture's URL has expired (r re-reads the task)" {
		t.Errorf("a URL answering 404: %v", err)
	}
	if _, err := s.Preview(ctx, "b", dead+"/b.png"); err == nil || err.Error() != "could not fetch the picture from 127.0.0.1:1" {
		t.Errorf("an unreachable host: %v", err)
	}
	// A task the service does not know: its re-read fails too.
	id, err := s.store.BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Body: []byte(`{"model":"svcq2","prompt":"p"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "ghost", State: api.StateCreated}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.store.ApplyResult(ctx, "ghost", record.Update{State: api.StateSuccess,
		Creations: record.CreationsFrom([]api.Creation{{ID: "0", URL: dead + "/ghost.png"}}, time.Now().Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	task, err := s.store.Task(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.TaskPreview(ctx, task, true); err == nil || err.Error() != "could not fetch the picture from 127.0.0.1:1, nor re-read the task for a fresh URL" {
		t.Errorf("a dead URL of a task the service does not know: %v", err)
	}
}
