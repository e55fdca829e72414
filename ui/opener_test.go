package ui

import (
	"clapper/record"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 19.8: the detail's o and f go through the one opener, which
// refuses a saved file with an executable extension and says why on the
// status line (nothing is launched).
func TestDetailOpenRefusesAnExecutable(t *testing.T) {
	m, s := newTestModel(t, 100, 30)
	ctx := context.Background()
	evil := filepath.Join(t.TempDir(), "2026-11-26_reference2image_811000000000000002_1.exe")
	if err := os.WriteFile(evil, []byte("MZ"), 0o755); err != nil {
		t.Fatal(err)
	}
	id, err := s.Record().QueueDownload(ctx, "811000000000000002", 0, record.KindURL, evil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record().UpdateDownload(ctx, id, record.DownloadProgress{Status: record.DownloadDone, Path: evil, Bytes: 2, Total: 2}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"G", "up", "enter"} {
		send(m, press(k))
	}
	if !strings.Contains(screen(m), "task 811000000000000002") {
		t.Fatalf("not the detail of task 811000000000000002:\n%s", screen(m))
	}
	for _, k := range []string{"o", "f"} {
		send(m, press(k))
		if got := screen(m); !strings.Contains(got, "not opened (not a video, picture or sound)") {
			t.Errorf("%s on an .exe: the status line does not refuse it:\n%s", k, got)
		}
	}
}
