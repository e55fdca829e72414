package ui

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On the Voices page, s creates a stored subject from a local image and a
// system voice, one dialog per field; the library then lists it, its voice
// marked as a system voice, and e edits it.
func TestVoicesPageCreatesAndEditsAStoredSubject(t *testing.T) {
	m, _ := newTestModel(t, 100, 40)
	img := filepath.Join(t.TempDir(), "mia.png")
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 200, 200))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	send(m, press("4"))
	if !strings.Contains(screen(m), "Stored subjects (0)") {
		t.Fatalf("no subjects section:\n%s", screen(m))
	}
	send(m, press("s"))
	if !strings.Contains(screen(m), "New subject · name (1 of 3)") {
		t.Fatalf("no name dialog:\n%s", screen(m))
	}
	typeText(m, "mia")
	send(m, press("enter"))
	send(m, press("enter")) // no image yet: refused, the dialog stays
	if !strings.Contains(screen(m), "give 1 to 3 images, got 0") {
		t.Fatalf("an empty image list must be refused:\n%s", screen(m))
	}
	typeText(m, img)
	send(m, press("enter"))
	typeText(m, "English_Graceful_Lady")
	send(m, press("enter"))
	out := screen(m)
	for _, want := range []string{"subject mia stored as sbs", "Stored subjects (1)", "English_Graceful_Lady (system voice)", "1 image"} {
		if !strings.Contains(out, want) {
			t.Errorf("after creating, the screen lacks %q:\n%s", want, out)
		}
	}
	send(m, press("e"))
	for range 3 {
		send(m, press("enter")) // keep name, images and voice
	}
	typeText(m, "ink")
	send(m, press("enter"))
	if out := screen(m); !strings.Contains(out, "subject mia stored as sbs") || strings.Contains(out, "not saved") {
		t.Errorf("editing:\n%s", out)
	}
}
