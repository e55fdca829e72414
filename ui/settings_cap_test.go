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
	for range len(p.rows) - 4 {
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
	for range len(p.rows) - 3 {
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
