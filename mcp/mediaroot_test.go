package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An agent's local files are read only from the media roots and the
// download folders. A path outside is refused by its name, the same way
// whether a file is there or not, a directory or not; a link inside a root
// that leads out is refused too; nothing is sent.
func TestLocalFilesOnlyFromTheMediaRoots(t *testing.T) {
	r := newRig(t, rigOpts{counted: true})
	outside := t.TempDir()
	private := filepath.Join(outside, "private.png")
	writePNG(t, private, 320, 240)
	link := filepath.Join(r.media, "innocent.png")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	answers := map[string]string{}
	for _, p := range []string{private, filepath.Join(outside, "absent.png"), outside} {
		msg := r.refused(t, "create_reference2image", map[string]any{"model": "svcq2", "prompt": "x", "images": []string{p}})
		if !strings.Contains(msg, "is outside the folders an agent may read files from") || !strings.Contains(msg, "--media-root") {
			t.Errorf("%s: %s", p, msg)
		}
		answers[p] = strings.ReplaceAll(msg, p, "PATH")
	}
	if answers[private] != answers[filepath.Join(outside, "absent.png")] || answers[private] != answers[outside] {
		t.Errorf("the refusals tell a file, a missing file and a folder apart:\n%q", answers)
	}
	if msg := r.refused(t, "create_reference2image", map[string]any{"model": "svcq2", "prompt": "x", "images": []string{link}}); !strings.Contains(msg, "leads outside") {
		t.Errorf("a link out of the root: %s", msg)
	}
	if n := r.posts.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	inside := filepath.Join(r.media, "sub", "ok.png")
	os.MkdirAll(filepath.Dir(inside), 0o700)
	writePNG(t, inside, 320, 240)
	var c created
	r.ok(t, "create_reference2image", map[string]any{"model": "svcq2", "prompt": "a fox", "images": []string{inside}}, &c)
	if c.TaskID == "" {
		t.Errorf("a file in the media root: %+v", c)
	}
}
