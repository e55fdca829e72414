package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"testing"

	"clapper/studio"
)

// --no-download saves nothing, later either: create --wait, follow and
// variations --wait leave no download queued for the next clapper watch
// (or the TUI's downloader) to fetch as if a clapper had been killed
// saving it.
func TestNoDownloadQueuesNothingForLater(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/text2video": {`{"task_id":"nd1","state":"created"}`}}}
	payload := bytes.Repeat([]byte("frame "), 100)
	files := &resultFiles{svc: svc, content: map[string][]byte{"/files/nd1.mp4": payload}, ranges: map[string][]string{}}
	srv := httptest.NewServer(files)
	defer srv.Close()
	svc.answers["GET /ent/v2/tasks/nd1/creations"] = []string{`{"id":"nd1","state":"success","creations":[{"id":"c","url":"` + srv.URL + `/files/nd1.mp4"}]}`}
	dl, data := t.TempDir(), t.TempDir()
	exec := func(a ...string) run {
		return execute("", append(a, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data, "--download-dir", dl)...)
	}
	if r := exec("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p", "--wait", "--no-download"); r.code != 0 {
		t.Fatal(r.err)
	}
	store, err := studio.OpenHistory(context.Background(), studio.Config{DataDir: data, BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	dls, err := store.Downloads(context.Background(), "nd1")
	store.Close()
	if err != nil || len(dls) != 0 {
		t.Errorf("create --wait --no-download queued %+v (%v)", dls, err)
	}
	if r := exec("watch"); r.code != 0 {
		t.Fatalf("watch: %+v", r)
	}
	if saved, _ := os.ReadDir(dl); len(saved) != 0 {
		t.Errorf("the next watch saved what --no-download left: %v", saved)
	}
	if got := files.requests("/files/nd1.mp4"); len(got) != 0 {
		t.Errorf("fetched %q", got)
	}
}
