package track

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A file is saved under its base name with the policy's extension, and a
// second save of the same base never overwrites the first.
func TestSaveNeverOverwrites(t *testing.T) {
	payload := []byte("a version's video")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		w.Write(payload)
	}))
	defer srv.Close()
	dir := t.TempDir()
	d := &Downloader{}
	f := File{Media: "video", Dir: dir, Base: "job_scene1_v1", URL: func(context.Context, bool) (string, error) { return srv.URL + "/v", nil }}
	for _, want := range []string{"job_scene1_v1.mp4", "job_scene1_v1 (2).mp4"} {
		path, n, err := d.Save(context.Background(), f)
		if err != nil || path != filepath.Join(dir, want) || n != int64(len(payload)) {
			t.Fatalf("Save: %s, %d, %v; want %s", path, n, err, want)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, payload) {
			t.Errorf("%s holds %q", want, got)
		}
	}
}

// A cache entry (Replace) keeps exactly base.ext, replaced by each save,
// and SavedPicture finds it; no partial file is left.
func TestSaveReplacesACacheEntry(t *testing.T) {
	picture := pngBytes(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(picture) }))
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cover.png"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := File{Media: "image", Dir: dir, Base: "cover", Replace: true, URL: func(context.Context, bool) (string, error) { return srv.URL + "/c", nil }}
	path, _, err := (&Downloader{}).Save(context.Background(), f)
	if err != nil || path != filepath.Join(dir, "cover.png") {
		t.Fatalf("Save: %s, %v", path, err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, picture) {
		t.Error("the cache entry was not replaced")
	}
	if found, ok := SavedPicture(dir, "cover"); !ok || found != path {
		t.Errorf("SavedPicture: %s, %v", found, ok)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the folder: %v", entries)
	}
	if _, ok := SavedPicture(dir, "missing"); ok {
		t.Error("SavedPicture found a picture never saved")
	}
}

// A lapsed URL is asked for afresh once: a fresh one that works saves the
// file; one that has lapsed too ends the save as expired, leaving nothing.
func TestSaveAsksOnceForAFreshURL(t *testing.T) {
	retryPause = time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/fresh" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "video/mp4")
		w.Write([]byte("video"))
	}))
	defer srv.Close()
	for _, c := range []struct {
		fresh string
		ok    bool
	}{{"/fresh", true}, {"/lapsed-too", false}} {
		dir := t.TempDir()
		var asked []bool
		f := File{Media: "video", Dir: dir, Base: "v", URL: func(_ context.Context, fresh bool) (string, error) {
			asked = append(asked, fresh)
			if fresh {
				return srv.URL + c.fresh, nil
			}
			return srv.URL + "/lapsed", nil
		}}
		_, _, err := (&Downloader{}).Save(context.Background(), f)
		if (err == nil) != c.ok || (!c.ok && !errors.Is(err, ErrExpired)) {
			t.Errorf("fresh URL %s: %v", c.fresh, err)
		}
		if len(asked) != 2 || asked[0] || !asked[1] {
			t.Errorf("fresh URL %s: URLs asked %v, want one, then one fresh", c.fresh, asked)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != map[bool]int{true: 1, false: 0}[c.ok] {
			t.Errorf("fresh URL %s: left %v", c.fresh, entries)
		}
	}
}

// A save that fails for good removes its partial file; one that is stopped
// keeps it for the next save to resume.
func TestSaveKeepsThePartOnlyWhenStopped(t *testing.T) {
	retryPause = time.Millisecond
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Length", "100")
		w.Write([]byte("half"))
		w.(http.Flusher).Flush()
		if r.URL.Path == "/hang" {
			select {
			case <-stop:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(stop)
	url := func(path string) func(context.Context, bool) (string, error) {
		return func(context.Context, bool) (string, error) { return srv.URL + path, nil }
	}
	dir := t.TempDir()
	if _, _, err := (&Downloader{}).Save(context.Background(), File{Media: "video", Dir: dir, Base: "failed", URL: url("/cut")}); err == nil {
		t.Fatal("a save that always breaks off succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed save left %v", entries)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, _, err := (&Downloader{IdleTimeout: time.Hour}).Save(ctx, File{Media: "video", Dir: dir, Base: "stopped", URL: url("/hang")}); err == nil {
		t.Fatal("a stopped save succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, ".stopped.part")); err != nil {
		t.Errorf("a stopped save kept no partial file: %v", err)
	}
}

// A save is tried three times; an attempt counts unless it got further
// than every one before it, and the first always counts.
func TestSaveTriesThreeTimes(t *testing.T) {
	retryPause = time.Millisecond
	for _, c := range []struct {
		script []int
		gets   int
	}{{nil, 3}, {[]int{100}, 3}, {[]int{0, 100}, 4}} {
		files := &cuttingFiles{script: c.script}
		srv := httptest.NewServer(files)
		f := File{Media: "video", Dir: t.TempDir(), Base: "v", URL: func(context.Context, bool) (string, error) { return srv.URL + "/v", nil }}
		_, _, err := (&Downloader{}).Save(context.Background(), f)
		srv.Close()
		if err == nil || files.gets != c.gets {
			t.Errorf("script %v: %v after %d requests, want a failure after %d", c.script, err, files.gets, c.gets)
		}
	}
}
