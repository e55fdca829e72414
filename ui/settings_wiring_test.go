package ui

import (
	"context"
	"encoding/json"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api/sandbox"
	"clapper/studio"
)

// Each row of the Settings page, changed by keys and saved with s, is
// written to the settings file under its own name and runs the program on
// the new value at once.
func TestSettingsRowsAreSavedAndApplied(t *testing.T) {
	folder := filepath.Join(t.TempDir(), "saved here")
	for _, c := range []struct {
		name    string
		row     int      // downs from the top
		keys    []string // after reaching the row; "=text" types text into the emptied input
		field   string
		want    any
		applied func(studio.Config) bool
	}{
		{"download folder", 2, []string{"enter", "=" + folder, "enter"}, "download_dir", folder,
			func(c studio.Config) bool { return c.DownloadDir == folder }},
		{"auto-download", 3, []string{"space"}, "auto_download", false,
			func(c studio.Config) bool { return !c.AutoDownload }},
		{"request budget", 4, []string{"enter", "=2.5", "enter"}, "request_budget", 2.5,
			func(c studio.Config) bool { return c.RequestBudget == 2.5 }},
		{"sandbox speed", 5, []string{"enter", "=60", "enter"}, "sandbox_speed", 60.0,
			func(c studio.Config) bool { return c.SandboxSpeed == 60 }},
		{"theme", 6, []string{"space"}, "theme", "light", // dark → light
			func(c studio.Config) bool { return c.Theme == "light" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(studio.EnvConfigDir, t.TempDir())
			m, s := newTestModel(t, 100, 30)
			s.Config.AutoDownload = true
			m.pages[pageSettings].(*settingsPage).reopen()
			send(m, press("6"))
			for range c.row {
				send(m, press("down"))
			}
			for _, k := range c.keys {
				if len(k) > 1 && k[0] == '=' {
					m.Update(ctrl('u'))
					m.Update(tea.PasteMsg{Content: k[1:]})
					continue
				}
				m.Update(press(k))
			}
			_, cmd := m.Update(press("s"))
			if cmd == nil {
				t.Fatalf("s saved nothing:\n%s", screen(m))
			}
			if !runUntil(m, cmd, func() bool { return c.applied(m.env.studio.Config) }, 10*time.Second) {
				t.Errorf("the program does not run on the new %s: %+v", c.name, m.env.studio.Config)
			}
			path, _ := studio.SettingsPath()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var saved map[string]any
			if err := json.Unmarshal(b, &saved); err != nil {
				t.Fatal(err)
			}
			if saved[c.field] != c.want {
				t.Errorf("settings.json holds %s = %v, want %v:\n%s", c.field, saved[c.field], c.want, b)
			}
			if c.name == "theme" && m.env.theme.Dark {
				t.Error("the light theme was saved but the screen stays dark")
			}
		})
	}
}

// The theme comes from the settings file (or the default, auto, which
// follows the terminal's background) when the program starts.
func TestThemeFromTheSettingsFileAndDefault(t *testing.T) {
	for _, c := range []struct {
		saved    string
		terminal color.Color
		dark     bool
	}{
		{"light", color.Black, false},
		{"dark", color.White, true},
		{"", color.Black, true},  // auto on a dark terminal
		{"", color.White, false}, // auto on a light one
	} {
		t.Setenv(studio.EnvConfigDir, t.TempDir())
		if c.saved != "" {
			if _, err := studio.SaveSettings(studio.Settings{Theme: c.saved}); err != nil {
				t.Fatal(err)
			}
		}
		cfg := studio.Config{DataDir: filepath.Join(testRoot, "theme")}
		if err := cfg.Resolve(); err != nil {
			t.Fatal(err)
		}
		s, err := studio.Open(context.Background(), cfg, studio.Options{Sandbox: &sandbox.Config{Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		m := New(s, func() time.Time { return testNow }, nil)
		send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
		send(m, tea.BackgroundColorMsg{Color: c.terminal})
		if m.env.theme.Dark != c.dark {
			t.Errorf("theme %q on a %v terminal: dark %v, want %v", c.saved, c.terminal, m.env.theme.Dark, c.dark)
		}
		s.Close()
	}
}

// q with changes on the Settings page not saved asks first: n keeps the
// program and the changes, y quits; saved or discarded (esc), q quits at once.
func TestQuitAsksOverUnsavedSettings(t *testing.T) {
	t.Setenv(studio.EnvConfigDir, t.TempDir())
	m, _ := newTestModel(t, 80, 24)
	send(m, press("6"))
	for range 3 {
		send(m, press("down"))
	}
	send(m, press("space")) // auto-download switched
	send(m, press("q"))
	if m.quitting || !strings.Contains(screen(m), "Quit without saving the settings?") {
		t.Fatalf("q over unsaved settings did not ask:\n%s", screen(m))
	}
	send(m, press("n"))
	if m.quitting || !strings.Contains(screen(m), "Unsaved changes") {
		t.Fatalf("n did not keep the program and its changes:\n%s", screen(m))
	}
	send(m, press("q"))
	send(m, press("y"))
	if !m.quitting {
		t.Fatalf("y did not quit:\n%s", screen(m))
	}

	m, _ = newTestModel(t, 80, 24)
	send(m, press("6"))
	for range 3 {
		send(m, press("down"))
	}
	send(m, press("space"))
	send(m, press("esc")) // discards them
	send(m, press("q"))
	if !m.quitting {
		t.Fatalf("q with the changes discarded did not quit:\n%s", screen(m))
	}
}
