package studio

import (
	"clapper/api"
	"clapper/record"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 19.8: one opener for the whole program opens only web addresses
// and media files clapper saved; every other target is refused with the
// reason, and nothing is launched for it.
func TestOpenerOpensOnlyWebAddressesAndSavedMedia(t *testing.T) {
	isolate(t)
	downloads, elsewhere := t.TempDir(), t.TempDir()
	s, err := Open(context.Background(), Config{DataDir: t.TempDir(), DownloadDir: downloads, Timeout: DefaultTimeout,
		SandboxSpeed: 1, RequestBudget: 4}, Options{SendOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var launched []string
	defer func(old func(string) error) { launch = old }(launch)
	launch = func(target string) error { launched = append(launched, target); return nil }

	write := func(dir, name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	video := write(downloads, "2026-11-26_text2video_1_1.mp4")
	exe := write(downloads, "2026-11-26_text2video_2_1.exe")
	outside := write(elsewhere, "holiday.mp4")
	link := filepath.Join(downloads, "sneaky.mp4")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ok := range []string{"https://cdn.example.com/v.mp4?sig=1", "http://127.0.0.1:8080/r.png", video} {
		if err := s.OpenExternal(ctx, ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"file:///etc/passwd", "ms-msdt:/id PCWDiagnostic", `\\evil.example.com\share\x.mp4`, "javascript:alert(1)",
		"https:///no-host", "/etc/passwd", exe, outside, link, "relative/clip.mp4", "",
	} {
		err := s.OpenExternal(ctx, bad)
		if !errors.Is(err, ErrNotOpened) {
			t.Errorf("%q: %v, want a refusal", bad, err)
		}
	}
	if err := s.OpenFolderOf(ctx, exe); !errors.Is(err, ErrNotOpened) {
		t.Errorf("the folder of an executable: %v", err)
	}
	if err := s.OpenFolderOf(ctx, video); err != nil {
		t.Errorf("the folder of a saved video: %v", err)
	}
	want := []string{"https://cdn.example.com/v.mp4?sig=1", "http://127.0.0.1:8080/r.png", video, downloads}
	if strings.Join(launched, "|") != strings.Join(want, "|") {
		t.Errorf("launched %q, want %q", launched, want)
	}
	// A file saved with --download-dir elsewhere is recorded as saved in
	// history: the opener trusts it there, and nothing else beside it.
	recorded := write(elsewhere, "2026-11-26_img2video_3_1.mp4")
	recordSaved(t, s, recorded)
	launched = nil
	if err := s.OpenExternal(ctx, recorded); err != nil || len(launched) != 1 {
		t.Errorf("a file history recorded as saved: %v (launched %q)", err, launched)
	}
	if err := s.OpenExternal(ctx, outside); !errors.Is(err, ErrNotOpened) {
		t.Errorf("a file beside it that clapper did not save: %v", err)
	}
	if err := s.OpenExternal(ctx, "file:///etc/passwd"); err == nil || !strings.Contains(err.Error(), "not opened (only http and https addresses are opened): file:///etc/passwd") {
		t.Errorf("the refusal does not say why: %v", err)
	}
}

// recordSaved records path as the saved result of a finished task.
func recordSaved(t *testing.T, s *Studio, path string) {
	t.Helper()
	ctx := context.Background()
	id, err := s.store.BeginSubmit(ctx, record.Intent{Operation: api.OpImg2Video, Model: "svcq1", Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: "3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.store.ApplyResult(ctx, "3", record.Update{State: api.StateSuccess,
		Creations: record.CreationsFrom([]api.Creation{{ID: "c", URL: "https://r/3"}}, time.Now().Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	dl, err := s.store.QueueDownload(ctx, "3", 0, record.KindURL, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.UpdateDownload(ctx, dl, record.DownloadProgress{Status: record.DownloadDone, Path: path, Bytes: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
}
