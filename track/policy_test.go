package track

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// hostileFiles serves each path with a chosen content type and body, and
// records the headers of every request.
type hostileFiles struct {
	mu      sync.Mutex
	types   map[string]string
	bodies  map[string][]byte
	headers []http.Header
}

func (h *hostileFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.headers = append(h.headers, r.Header.Clone())
	ct, body := h.types[r.URL.Path], h.bodies[r.URL.Path]
	h.mu.Unlock()
	w.Header().Set("Content-Type", ct)
	w.Write(body)
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// saveResult runs one result URL of a task of op through the downloader
// and returns its download.
func saveResult(t *testing.T, op api.Operation, url, dir string) record.Download {
	t.Helper()
	retryPause = time.Millisecond
	svc := newService()
	c, store, clk := setup(t, svc)
	_, ids := watch(t, svc, c, store, clk, WatcherOptions{}, 1)
	res := &api.TaskResult{ID: ids[0], State: api.StateSuccess, Creations: []api.Creation{{ID: "c", URL: url}}}
	if _, err := store.ApplyResult(context.Background(), ids[0], updateFrom(res, clk.Now())); err != nil {
		t.Fatal(err)
	}
	d := &Downloader{Store: store, Client: c, Clock: clk, DirFor: func(api.Operation) string { return dir }}
	if err := d.QueueResults(context.Background(), ids[0], op, clk.Now(), res); err != nil {
		t.Fatal(err)
	}
	d.RunPending(context.Background())
	dls, err := store.Downloads(context.Background(), ids[0])
	if err != nil || len(dls) != 1 {
		t.Fatalf("downloads %v (%v)", dls, err)
	}
	return dls[0]
}

// Issue 19.9: the server names results .exe, .hta, .sh, .html, .bat; what
// is saved has an extension of the allow-list of its kind, else of its
// sniffed content, else .bin. Downloads carry no key (issue 19.6) and ask
// for the bytes as stored (issue 19.10).
func TestHostileResultNamesNeverSaveExecutables(t *testing.T) {
	wav := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), make([]byte, 40)...)
	srv := &hostileFiles{
		types: map[string]string{
			"/r.exe": "application/x-msdownload", "/r.hta": "application/hta", "/r.sh": "text/x-sh",
			"/r.html": "text/html", "/r.bat": "application/octet-stream", "/ok.jpg": "image/jpeg",
		},
		bodies: map[string][]byte{
			"/r.exe": pngBytes(t), "/r.hta": []byte("<html><script>run()</script></html>"),
			"/r.sh": []byte("#!/bin/sh\nrm -rf ~\n"), "/r.html": []byte("<!DOCTYPE html><p>hi"),
			"/r.bat": wav, "/ok.jpg": []byte("\xff\xd8\xff\xe0 a jpeg"),
		},
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, c := range []struct {
		op        api.Operation
		path, ext string
	}{
		{api.OpReference2Image, "/r.exe", ".png"}, // sniffed: a PNG whatever it is called
		{api.OpReference2Image, "/r.hta", ".bin"},
		{api.OpText2Video, "/r.sh", ".bin"},
		{api.OpAudioTTS, "/r.html", ".bin"},
		{api.OpTiming2Audio, "/r.bat", ".wav"}, // sniffed
		{api.OpReference2Image, "/ok.jpg", ".jpg"},
	} {
		dir := t.TempDir()
		dl := saveResult(t, c.op, hs.URL+c.path+"?sig=1", dir)
		if dl.Status != record.DownloadDone || filepath.Ext(dl.Path) != c.ext {
			t.Errorf("%s as %s: %s %s, want a %s file", c.path, c.op, dl.Status, dl.Path, c.ext)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); ext != ".png" && ext != ".jpg" && ext != ".wav" && ext != ".bin" {
				t.Errorf("%s: %s saved", c.path, e.Name())
			}
		}
	}
	for _, h := range srv.headers {
		if h.Get("Authorization") != "" {
			t.Errorf("a download carried Authorization %q", h.Get("Authorization"))
		}
		if h.Get("Accept-Encoding") != "identity" {
			t.Errorf("a download asked for Accept-Encoding %q, want identity", h.Get("Accept-Encoding"))
		}
	}
}

func TestChooseExt(t *testing.T) {
	for _, c := range []struct {
		media, url, ct string
		head           string
		want           string
	}{
		{"image", "https://x/a.png", "image/jpeg", "", "jpg"},
		{"image", "https://x/a.png", "", "", "png"},
		{"video", "https://x/a.mp4", "text/plain; charset=utf-8", "", "mp4"},
		{"audio", "https://x/a", "audio/mpeg", "", "mp3"},
		{"video", "https://x/a.exe", "video/mp4", "", "mp4"},
		{"video", "https://x/a.exe", "application/x-msdownload", "MZ\x90\x00", "bin"},
		{"video", "https://x/a.png", "", "", "bin"},              // an image extension for a video: not allowed
		{"video", "https://x/a", "", "\x89PNG\r\n\x1a\n", "png"}, // but sniffed content of any media is
		{"image", "https://x/a.desktop", "", "[Desktop Entry]\nExec=sh", "bin"},
		{"audio", "https://x/a.ps1", "text/html", "<html>", "bin"},
	} {
		if got := chooseExt(c.media, c.url, c.ct, []byte(c.head)); got != c.want {
			t.Errorf("chooseExt(%s, %s, %q) = %s, want %s", c.media, c.url, c.ct, got, c.want)
		}
	}
	for _, bad := range []string{"exe", "hta", "sh", "html", "htm", "bat", "cmd", "ps1", "js", "vbs", "scr", "app", "desktop", "jar", "msi", "lnk", "svg"} {
		if anyMedia(bad) || AllowedToOpen("x."+bad) {
			t.Errorf(".%s is allowed", bad)
		}
	}
}

func TestFinalNameNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	os.WriteFile(filepath.Join(dir, "b_1.mp4"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "b_1 (2).mp4"), nil, 0o644)
	if got := finalName(root, "b_1", "mp4"); got != "b_1 (3).mp4" {
		t.Errorf("existing files overwritten: %s", got)
	}
}

// Issue 19.10: a gzip-encoded result is not inflated: it is refused, and
// nothing (not even a partial file) is left.
func TestGzipEncodedResultIsRefusedNotInflated(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(make([]byte, 8<<20)) // 8 MB of zeros, a few KB on the wire
	zw.Close()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "video/mp4")
		w.Write(gz.Bytes())
	}))
	defer hs.Close()
	dir := t.TempDir()
	dl := saveResult(t, api.OpText2Video, hs.URL+"/bomb.mp4", dir)
	if dl.Status != record.DownloadFailed || !strings.Contains(dl.Error, "compressed (Content-Encoding gzip)") {
		t.Errorf("a gzip body: %s %q", dl.Status, dl.Error)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the folder: %v", entries)
	}
}

// Issue 19.10: each kind has a size cap, checked against Content-Length
// before anything is written and enforced while the bytes arrive (a
// server that sends no length); the partial file goes with the failure.
func TestSizeCapByLengthAndWhileStreaming(t *testing.T) {
	defer func(old int64) { MaxBytes["image"] = old }(MaxBytes["image"])
	MaxBytes["image"] = 1000
	body := bytes.Repeat([]byte("x"), 5000)
	var sent int
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked.png" {
			// No Content-Length: the bytes come in pieces until the client stops.
			for i := 0; i < 50; i++ {
				n, err := w.Write(body[:100])
				sent += n
				if err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body)
	}))
	defer hs.Close()
	for _, path := range []string{"/sized.png", "/chunked.png"} {
		dir := t.TempDir()
		dl := saveResult(t, api.OpReference2Image, hs.URL+path, dir)
		if dl.Status != record.DownloadFailed || !strings.Contains(dl.Error, "larger than clapper saves") || !strings.Contains(dl.Error, "the cap is 1000 B") {
			t.Errorf("%s: %s %q", path, dl.Status, dl.Error)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: left in the folder: %v", path, entries)
		}
	}
}

// Issue 19.10: a download that fails for good leaves no partial file; one
// that is stopped keeps it for the next run (TestCtrlC… in cli).
func TestFailedDownloadLeavesNoPartialFile(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") == "" {
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("half"))
			return // the connection ends short: a partial file is left
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer hs.Close()
	dir := t.TempDir()
	dl := saveResult(t, api.OpText2Video, hs.URL+"/v.mp4", dir)
	if dl.Status != record.DownloadFailed {
		t.Fatalf("status %s", dl.Status)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the folder: %v", entries)
	}
}
