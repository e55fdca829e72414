package studio

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
)

// counting serves a sandbox, counts the uploads opened and the creations
// sent, and refuses every creation as an image the service could not read
// when refuse is set.
type counting struct {
	sb      *sandbox.Server
	refuse  bool
	uploads atomic.Int64
	creates atomic.Int64
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == api.PathUploads {
		c.uploads.Add(1)
	} else if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/ent/v2/") {
		c.creates.Add(1)
		if c.refuse {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"code":400,"reason":"ImageDownloadFailure","message":"image download failure: images (0)"}`))
			return
		}
	}
	c.sb.ServeHTTP(w, r)
}

// uploadStudio opens a studio that uploads every image, on a sandbox
// behind c, both on clk.
func uploadStudio(t *testing.T, c *counting, clk *sandbox.FakeClock) *Studio {
	t.Helper()
	isolate(t)
	sb, err := sandbox.New(sandbox.Config{Seed: 1, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	c.sb = sb
	ts := httptest.NewServer(c)
	t.Cleanup(ts.Close)
	s, err := Open(context.Background(), Config{BaseURL: ts.URL, APIKey: "key-123456", DataDir: t.TempDir(), Uploads: UploadAlways,
		RequestBudget: 10, SandboxSpeed: 1, Timeout: time.Minute}, Options{SendOnly: true, Clock: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func imageBody(t *testing.T) func() map[string]any {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 300, 200))); err != nil {
		t.Fatal(err)
	}
	uri := "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	return func() map[string]any { return map[string]any{"model": "svcq2-pro", "images": []any{uri}} }
}

// An upload is used again for the same bytes for six days by the studio's
// clock (not hours, not the wall clock): a day before the end no bytes
// are sent again, past it they are uploaded afresh.
func TestUploadsAreReusedForSixDaysByTheStudiosClock(t *testing.T) {
	clk := sandbox.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	c := &counting{}
	s := uploadStudio(t, c, clk)
	body := imageBody(t)
	for _, step := range []struct {
		after   time.Duration
		uploads int64
	}{{0, 1}, {5 * 24 * time.Hour, 1}, {24*time.Hour + time.Minute, 2}} {
		clk.Advance(step.after)
		if _, err := s.Send(context.Background(), api.OpImg2Video, body()); err != nil {
			t.Fatal(err)
		}
		if got := c.uploads.Load(); got != step.uploads {
			t.Fatalf("after %v more: %d uploads, want %d", step.after, got, step.uploads)
		}
	}
}

// A fresh upload the service refuses is the service's answer: the send
// fails naming it, with one upload and one creation (only an upload used
// again is replaced and the request sent once more).
func TestAFreshUploadRefusedIsNotSentAgain(t *testing.T) {
	c := &counting{refuse: true}
	s := uploadStudio(t, c, sandbox.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	_, err := s.Send(context.Background(), api.OpImg2Video, imageBody(t)())
	if err == nil || !strings.Contains(err.Error(), "image download failure") {
		t.Errorf("a refused fresh upload: %v", err)
	}
	if u, n := c.uploads.Load(), c.creates.Load(); u != 1 || n != 1 {
		t.Errorf("%d uploads and %d creations for one send of a fresh upload, want 1 and 1", u, n)
	}
}
