package ui

import (
	"os"
	"strings"
	"testing"

	"clapper/studio"
)

// space on the Uploads row cycles auto, always, never; s saves the choice.
func TestSettingsUploadsCycleAndSave(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	path, _ := studio.SettingsPath()
	os.Remove(path)
	t.Cleanup(func() { os.Remove(path) })
	send(m, press("6"))
	p := m.pages[pageSettings].(*settingsPage)
	for p.rows[p.cursor].label != "Uploads" {
		send(m, press("down"))
	}
	send(m, press("space"))
	if !strings.Contains(screen(m), "Uploads             always") {
		t.Fatalf("space did not pick always:\n%s", screen(m))
	}
	send(m, press("s"))
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"uploads": "always"`) {
		t.Errorf("settings.json:\n%s", b)
	}
}
