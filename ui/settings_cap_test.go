package ui

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"clapper/studio"
)

// The agent credit cap is typed on the Settings page (enter, the number,
// enter, s) and saved for clapper mcp; a value that is no cap is named.
func TestSettingsSavesTheAgentCreditCap(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	path, _ := studio.SettingsPath()
	os.Remove(path)
	t.Cleanup(func() { os.Remove(path) })
	send(m, press("6"))
	p := m.pages[pageSettings].(*settingsPage)
	for range settingsRow(t, p, "Agent credit cap") {
		send(m, press("down"))
	}
	if !strings.Contains(screen(m), "Credits AI agents (clapper mcp) may spend a day") {
		t.Fatalf("the cap's row is not selected:\n%s", screen(m))
	}
	send(m, press("enter"))
	p.input.SetValue("lots")
	send(m, press("enter"))
	if !strings.Contains(screen(m), "agent credit cap: give a whole number of credits") {
		t.Errorf("a bad cap is not named:\n%s", screen(m))
	}
	send(m, press("enter"))
	p.input.SetValue("500")
	send(m, press("enter"))
	cmd := p.Update(press("s"))
	if cmd == nil {
		t.Fatalf("nothing saved: %s", p.problem)
	}
	msg, ok := cmd().(settingsSavedMsg)
	if !ok || msg.cfg.AgentCreditCap != 500 {
		t.Fatalf("saved %#v", msg)
	}
	b, _ := os.ReadFile(path)
	var saved map[string]any
	if json.Unmarshal(b, &saved); saved["agent_credit_cap"] != float64(500) {
		t.Errorf("settings.json:\n%s", b)
	}
}

// The daily and monthly caps are rows below it, saved as the settings
// file's daily_credit_cap and monthly_credit_cap.
func TestSettingsSavesTheDailyAndMonthlyCaps(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	path, _ := studio.SettingsPath()
	os.Remove(path)
	t.Cleanup(func() { os.Remove(path) })
	send(m, press("6"))
	p := m.pages[pageSettings].(*settingsPage)
	for range settingsRow(t, p, "Daily credit cap") {
		send(m, press("down"))
	}
	if !strings.Contains(screen(m), "Credits all tasks may cost a day") {
		t.Fatalf("the daily cap's row is not selected:\n%s", screen(m))
	}
	send(m, press("enter"))
	p.input.SetValue("200")
	send(m, press("enter"))
	send(m, press("down"))
	send(m, press("enter"))
	p.input.SetValue("3000")
	send(m, press("enter"))
	if !strings.Contains(screen(m), "Monthly credit cap") {
		t.Fatalf("the monthly row is not shown whole:\n%s", screen(m))
	}
	cmd := p.Update(press("s"))
	if cmd == nil {
		t.Fatalf("nothing saved: %s", p.problem)
	}
	msg, ok := cmd().(settingsSavedMsg)
	if !ok || msg.cfg.DailyCreditCap != 200 || msg.cfg.MonthlyCreditCap != 3000 {
		t.Fatalf("saved %#v", msg)
	}
	b, _ := os.ReadFile(path)
	var saved map[string]any
	if json.Unmarshal(b, &saved); saved["daily_credit_cap"] != float64(200) || saved["monthly_credit_cap"] != float64(3000) {
		t.Errorf("settings.json:\n%s", b)
	}
}

// At 80x24 a change keeps the history path on screen (the paths go beside
// their names), and a value switched away and back is no change: the
// unsaved-changes line and the s key go with it.
func TestSettingsChangeAt80x24(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	send(m, press("6"))
	p := m.pages[pageSettings].(*settingsPage)
	for range 3 {
		send(m, press("down"))
	}
	history := p.env.studio.Config.HistoryPath()
	send(m, press("space"))
	got := screen(m)
	if !strings.Contains(got, "Auto-download") || !strings.Contains(got, "Unsaved changes") ||
		!strings.Contains(got, "History       "+history) || !strings.Contains(got, "s save and apply") {
		t.Fatalf("a change at 80x24:\n%s", got)
	}
	send(m, press("space"))
	got = screen(m)
	if strings.Contains(got, "Unsaved changes") ||
		strings.Contains(got, "s save and apply") || !strings.Contains(got, history) {
		t.Fatalf("switched back, still a change:\n%s", got)
	}
}

// settingsRow is the place of the row labelled label: how many downs
// reach it from the first.
func settingsRow(t *testing.T, p *settingsPage, label string) int {
	t.Helper()
	for i, r := range p.rows {
		if r.label == label {
			return i
		}
	}
	t.Fatalf("no settings row %q", label)
	return 0
}

// The folders agents may read from and the price past which they ask are
// typed on the Settings page and saved for clapper mcp; a folder that is
// not there is named and nothing is saved. At 80x24 the rows scroll with
// the chosen one.
func TestSettingsSavesWhatAgentsMay(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	path, _ := studio.SettingsPath()
	os.Remove(path)
	t.Cleanup(func() { os.Remove(path) })
	send(m, press("6"))
	p := m.pages[pageSettings].(*settingsPage)
	for range settingsRow(t, p, "Agent folders") {
		send(m, press("down"))
	}
	got := screen(m)
	if !strings.Contains(got, "Folders whose files AI agents") || !strings.Contains(got, "↑ ") || !strings.Contains(got, "more") {
		t.Fatalf("the agent folders row at 80x24:\n%s", got)
	}
	send(m, press("enter"))
	typeText(m, "/no/such/folder")
	send(m, press("enter"))
	if !strings.Contains(screen(m), "agent folders: /no/such/folder is not a folder here") {
		t.Fatalf("a folder that is not there is not named:\n%s", screen(m))
	}
	a, b := t.TempDir(), t.TempDir()
	send(m, press("enter"))
	send(m, press("ctrl+u"))
	typeText(m, a+string(os.PathListSeparator)+b)
	send(m, press("enter"))
	send(m, press("down"))
	send(m, press("enter"))
	send(m, press("ctrl+u"))
	typeText(m, "250")
	send(m, press("enter"))
	if !strings.Contains(screen(m), "Agent asks above    250") {
		t.Fatalf("the price row after typing:\n%s", screen(m))
	}
	cmd := p.Update(press("s"))
	if cmd == nil {
		t.Fatalf("nothing saved: %s", p.problem)
	}
	msg, ok := cmd().(settingsSavedMsg)
	if !ok || len(msg.cfg.MediaRoots) != 2 || msg.cfg.AgentConfirmAbove != 250 {
		t.Fatalf("saved %#v", msg)
	}
	raw, _ := os.ReadFile(path)
	var saved struct {
		Roots []string `json:"agent_media_roots"`
		Above *int64   `json:"agent_confirm_above"`
	}
	if json.Unmarshal(raw, &saved); len(saved.Roots) != 2 || saved.Roots[0] != a || saved.Above == nil || *saved.Above != 250 {
		t.Errorf("settings.json:\n%s", raw)
	}
}
