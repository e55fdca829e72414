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

// swappable serves whichever sandbox is current: replacing it stands for a
// service that no longer knows the uploads it issued.
type swappable struct {
	cur atomic.Pointer[sandbox.Server]
}

func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.cur.Load().ServeHTTP(w, r) }

func newSandbox(t *testing.T, seed int64) *sandbox.Server {
	t.Helper()
	srv, err := sandbox.New(sandbox.Config{Seed: seed, Clock: sandbox.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func TestARefusedUploadIsSentAfresh(t *testing.T) {
	isolate(t)
	h := &swappable{}
	h.cur.Store(newSandbox(t, 1))
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	s, err := Open(context.Background(), Config{BaseURL: ts.URL, APIKey: "key-123456", DataDir: t.TempDir(), Uploads: UploadAlways, RequestBudget: 10, SandboxSpeed: 1, Timeout: time.Minute}, Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 300, 200))); err != nil {
		t.Fatal(err)
	}
	body := func() map[string]any {
		return map[string]any{"model": "svcq2-pro", "images": []any{"data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())}}
	}
	first, err := s.Send(context.Background(), api.OpImg2Video, body())
	if err != nil {
		t.Fatal(err)
	}
	h.cur.Store(newSandbox(t, 2))
	second, err := s.Send(context.Background(), api.OpImg2Video, body())
	if err != nil {
		t.Fatalf("a refused upload must be replaced by a fresh one: %v", err)
	}
	a, c := first.Task.Images, second.Task.Images
	if len(a) != 1 || len(c) != 1 || a[0] == c[0] || !strings.HasPrefix(c[0], "ssupload:") {
		t.Errorf("uploads %v then %v: want a new ssupload URI", a, c)
	}
}
