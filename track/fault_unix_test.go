//go:build unix

package track

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"clapper/internal/testenv"
)

// A download taking over another's partial file on a full disk (the copy
// of its beginning fails half way) fails there and says so, before asking
// the file's server for the rest: the part is no beginning to resume from.
func TestAdoptingAPartOnAFullDiskFailsBeforeAnyRequest(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(make([]byte, 8000)))
	}))
	defer srv.Close()
	dir := t.TempDir()
	other := ".r.mp4.other.part"
	if err := os.WriteFile(filepath.Join(dir, other), make([]byte, 4000), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.LimitFileSize(t, 1024)
	tr := transfer{dir: dir, part: ".r.mp4.part", base: "r", media: "video", url: srv.URL + "/r.mp4",
		others: func(*os.Root) []string { return []string{other} }}
	_, _, err := (&Downloader{IdleTimeout: time.Minute}).transfer(context.Background(), tr)
	if err == nil || !errors.Is(err, syscall.EFBIG) || requests.Load() != 0 {
		t.Errorf("adopting on a full disk: %v, after %d requests; want the write's failure and none", err, requests.Load())
	}
	if _, serr := os.Stat(filepath.Join(dir, tr.part)); serr == nil {
		t.Error("the cut copy was left as a part to resume")
	}
}
