package cli

import (
	"fmt"
	"io/fs"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"clapper/api/sandbox"
	"clapper/internal/textutil"
)

// A batch whose lines partly fail says so by its exit status and names how
// many; run again without --retry-failed it sends nothing: a failed line is
// sent again only when asked (each send costs credits). A first run says
// nothing of lines that "ran before".
func TestBatchWithFailedLinesExitsOneAndIsNotSentAgainUnasked(t *testing.T) {
	sb, err := sandbox.New(sandbox.Config{Speed: 3600, Seed: 5, FailRate: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	svc := &postCounter{h: sb, sent: make(chan struct{}, 64)}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	flags := []string{"--base-url", srv.URL, "--api-key", "k", "--data-dir", t.TempDir()}
	file := batchLines(t, 6, 0)
	r := execute("", append([]string{"batch", file, "--no-download"}, flags...)...)
	var done, failed int
	fmt.Sscanf(r.out, "batch: %d done, %d failed", &done, &failed)
	if failed == 0 || done+failed != 6 {
		t.Fatalf("first run: %d done, %d failed (the seed should fail some):\n%s%s", done, failed, r.out, r.err)
	}
	if r.code != 1 || !strings.Contains(r.err, textutil.Plural(failed, "line")+" of the batch failed") {
		t.Errorf("a batch with %d failed lines: exit %d, want 1 and the count:\n%s", failed, r.code, r.err)
	}
	if strings.Contains(r.err, "ran before") {
		t.Errorf("a first run speaks of lines that ran before:\n%s", r.err)
	}
	r = execute("", append([]string{"batch", file, "--no-download"}, flags...)...)
	if svc.count() != 6 {
		t.Fatalf("run again without --retry-failed: %d sent in all, want the 6 of the first run:\n%s%s", svc.count(), r.out, r.err)
	}
	if r.code != 1 {
		t.Errorf("run again, its failed lines still failed: exit %d, want 1:\n%s", r.code, r.err)
	}
}

// --no-download saves nothing, even into a --download-dir given with it;
// without it every line done has its result saved before the command ends.
func TestBatchSavesResultsUnlessNoDownload(t *testing.T) {
	svc, flags := countingSandbox(t)
	file := batchLines(t, 2, 0)
	files := func(dir string) int {
		t.Helper()
		n := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".part") {
				n++
			}
			return nil
		})
		return n
	}
	off := t.TempDir()
	r := execute("", append([]string{"batch", file, "--no-download", "--download-dir", off}, flags...)...)
	if r.code != 0 || svc.count() != 2 {
		t.Fatalf("--no-download: exit %d, %d sent:\n%s%s", r.code, svc.count(), r.out, r.err)
	}
	if n := files(off); n != 0 {
		t.Errorf("--no-download saved %d files in %s", n, off)
	}
	_, flags = countingSandbox(t)
	on := t.TempDir()
	r = execute("", append([]string{"batch", file, "--download-dir", on}, flags...)...)
	if r.code != 0 {
		t.Fatalf("a batch that saves: exit %d:\n%s%s", r.code, r.out, r.err)
	}
	if n := files(on); n < 2 {
		t.Errorf("a batch of 2 lines done left %d files saved when it ended, want each line's result:\n%s", n, r.err)
	}
}
