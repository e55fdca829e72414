package studio_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/studio"
)

// The one size rule: a body over the service's 20 MB once its files are
// inlined is sent when its images will be uploaded instead, and refused,
// with its size, when uploads are off. MCP once refused what the CLI
// uploaded.
func TestPrepareSendsALargeBodyWhoseImagesAreUploaded(t *testing.T) {
	dir := t.TempDir()
	var images []any
	for _, name := range []string{"a.png", "b.png"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, make([]byte, 8<<20), 0o600); err != nil {
			t.Fatal(err)
		}
		images = append(images, name)
	}
	for _, c := range []struct {
		uploads string
		refused bool
	}{{studio.UploadAuto, false}, {studio.UploadNever, true}} {
		cfg := studio.Config{DataDir: t.TempDir(), Timeout: 5 * time.Second, SandboxSpeed: 1, RequestBudget: 4, Uploads: c.uploads}
		s, err := studio.Open(context.Background(), cfg, studio.Options{SendOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Prepare(api.OpImg2Video, map[string]any{"model": "svcq1", "images": append([]any(nil), images...), "prompt": "p"}, dir)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if p.Size <= 20<<20 {
			t.Fatalf("the inlined body is %d bytes; the test needs more than 20 MB", p.Size)
		}
		if refused := p.TooLarge != ""; refused != c.refused || c.refused && !strings.Contains(p.TooLarge, "20 MB") {
			t.Errorf("uploads %s: too large %q, want refused %v", c.uploads, p.TooLarge, c.refused)
		}
	}
}

// The service's body limit is taken at its bound: a body of exactly 20 MB
// passes, a byte more does not (uploads off, so nothing exempts it).
func TestPrepareBodyLimitAtItsBound(t *testing.T) {
	cfg := studio.Config{Uploads: studio.UploadNever}
	body := func(n int) map[string]any {
		return map[string]any{"model": "svcq1", "prompt": "p", "images": []any{"data:image/png;base64," + strings.Repeat("A", n)}}
	}
	empty, err := studio.PrepareRequest(cfg, api.OpImg2Video, body(0), ".")
	if err != nil {
		t.Fatal(err)
	}
	fill := 20<<20 - empty.Size
	for n, refused := range map[int]bool{fill: false, fill + 1: true} {
		p, err := studio.PrepareRequest(cfg, api.OpImg2Video, body(n), ".")
		if err != nil {
			t.Fatal(err)
		}
		if (p.TooLarge != "") != refused {
			t.Errorf("a body of %d bytes: too large %q, want refused %v", p.Size, p.TooLarge, refused)
		}
	}
}

// The uploads setting at its bound: auto uploads a body's images only past
// the service's 20 MB, always uploads them, never does not.
func TestUploadingFollowsTheSettingAndTheLimit(t *testing.T) {
	const limit = 20 << 20
	for _, c := range []struct {
		mode string
		size int
		want bool
	}{
		{studio.UploadAuto, 1000, false}, {studio.UploadAuto, limit, false}, {studio.UploadAuto, limit + 1, true},
		{"", limit + 1, true}, {"", limit, false},
		{studio.UploadAlways, 10, true}, {studio.UploadNever, 2 * limit, false},
	} {
		if got := (studio.Config{Uploads: c.mode}).Uploading(c.size); got != c.want {
			t.Errorf("uploads %q, a body of %d bytes: uploading %v, want %v", c.mode, c.size, got, c.want)
		}
	}
}
