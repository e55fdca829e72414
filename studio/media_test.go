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
