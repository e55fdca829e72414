package ui

import (
	"bytes"
	"context"
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

// S reads the account's subjects from the service into the library; ] and
// [ move between them.
func TestVoicesPageReadsAndSelectsSubjects(t *testing.T) {
	m, s := newTestModel(t, 100, 40)
	for _, n := range []string{"ann", "bob"} {
		if _, err := s.Service().CreateSubject(context.Background(), map[string]any{"name": n, "images": []any{"https://e.com/a.png"}}); err != nil {
			t.Fatal(err)
		}
	}
	send(m, press("4"))
	if !strings.Contains(screen(m), "Stored subjects (0)") {
		t.Fatalf("subjects made elsewhere are not in the library yet:\n%s", screen(m))
	}
	send(m, press("S"))
	out := screen(m)
	if !strings.Contains(out, "2 stored subjects in the library") || !strings.Contains(out, "Stored subjects (2)") {
		t.Fatalf("after S:\n%s", out)
	}
	marked := func() string {
		for _, l := range strings.Split(screen(m), "\n") {
			if strings.HasPrefix(l, "› ") && strings.Contains(l, "sbs") {
				return l
			}
		}
		return ""
	}
	if !strings.Contains(marked(), "ann") {
		t.Fatalf("first subject not marked: %q", marked())
	}
	send(m, press("]"))
	if !strings.Contains(marked(), "bob") {
		t.Errorf("] did not move to bob: %q", marked())
	}
	send(m, press("["))
	if !strings.Contains(marked(), "ann") {
		t.Errorf("[ did not move back: %q", marked())
	}
}

// With cloned voices and stored subjects both listed, one ▌ marks the
// voice ↑/↓ moves; the selected subject has its own mark (›).
func TestVoicesPageHasOneBarCursor(t *testing.T) {
	m, s := newTestModel(t, 100, 40)
	seedVoices(t, m, standardVoices())
	if _, err := s.Service().CreateSubject(context.Background(), map[string]any{"name": "ann", "images": []any{"https://e.com/a.png"}}); err != nil {
		t.Fatal(err)
	}
	send(m, press("4"))
	send(m, press("S"))
	out := screen(m)
	if strings.Count(out, "▌") != 1 || !strings.Contains(out, "› ann") {
		t.Fatalf("want one ▌ (the voice) and › on the subject:\n%s", out)
	}
}
