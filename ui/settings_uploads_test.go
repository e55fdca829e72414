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

// A choice row switches on enter and → as well as space, and back on ←, as
// its footer says: a switch that ignored them looked frozen.
func TestSettingsChoiceRowSwitchesOnEnterAndArrows(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("6"))
	p := m.pages[pageSettings].(*settingsPage)
	for p.rows[p.cursor].label != "Uploads" {
		send(m, press("down"))
	}
	for _, step := range []struct{ key, want string }{
		{"enter", "always"}, {"right", "never"}, {"left", "always"}, {"left", "auto"}, {"left", "never"},
	} {
		send(m, press(step.key))
		if got := screen(m); !strings.Contains(got, "Uploads             "+step.want) {
			t.Fatalf("%s on Uploads: want %s:\n%s", step.key, step.want, got)
		}
	}
	if got := screen(m); !strings.Contains(got, "space/→ switch") {
		t.Errorf("the footer does not name the switch keys:\n%s", got)
	}
	// A toggle row switches on enter too.
	for p.rows[p.cursor].label != "Auto-download" {
		send(m, press("up"))
	}
	before := p.rows[p.cursor].get(&p.draft)
	send(m, press("enter"))
	if after := p.rows[p.cursor].get(&p.draft); after == before {
		t.Fatalf("enter on Auto-download left it %s:\n%s", after, screen(m))
	}
	send(m, press("esc"))
}
