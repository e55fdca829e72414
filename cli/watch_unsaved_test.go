package cli

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"clapper/record"
	"clapper/studio"
)

// clapper watch with no task in flight still fails (exit 1, naming the
// count) when a result an earlier clapper left half saved cannot be saved:
// cron and scripts see that a result is missing.
func TestWatchWithNothingInFlightFailsOnAResultItCannotSave(t *testing.T) {
	svc := &fakeService{answers: map[string][]string{"POST /ent/v2/text2video": {`{"task_id":"gone1","state":"created"}`}}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	// The result's file is gone from its server (404).
	svc.answers["GET /ent/v2/tasks/gone1/creations"] = []string{`{"id":"gone1","state":"success","creations":[{"id":"c","url":"` + srv.URL + `/files/gone1.mp4"}]}`}
	dl, data := t.TempDir(), t.TempDir()
	exec := func(a ...string) run {
		return execute("", append(a, "--base-url", srv.URL, "--api-key", "k", "--data-dir", data)...)
	}
	if r := exec("create", "text2video", "--set", "model=svcq3-pro", "--set", "prompt=p", "--wait", "--no-download"); r.code != 0 {
		t.Fatal(r.err)
	}
	// A clapper killed while saving it: its claim has lapsed.
	store, err := studio.OpenHistory(context.Background(), studio.Config{DataDir: data, BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n, err := store.QueueDownload(ctx, "gone1", 0, record.KindURL, filepath.Join(dl, "gone1.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.ClaimDownload(ctx, n, "killed", -time.Second); err != nil {
		t.Fatal(err)
	}
	store.Close()
	r := exec("watch")
	if !strings.Contains(r.out, "No task is in flight.") || r.code != 1 || !strings.Contains(r.err, "results of 1 task(s) could not be saved") {
		t.Fatalf("watch: exit %d, want 1 naming the result not saved\nstdout %q\nstderr %q", r.code, r.out, r.err)
	}
}
