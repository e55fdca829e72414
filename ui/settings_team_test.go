package ui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/record"
	"clapper/studio"
)

// The team history's row is the last: a URL that is not PostgreSQL's is
// refused by name, and one whose server cannot be reached is not saved;
// neither message shows the password.
func TestSettingsTeamHistoryIsReachedBeforeItIsSaved(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	path, _ := studio.SettingsPath()
	os.Remove(path)
	t.Cleanup(func() { os.Remove(path) })
	send(m, press("6"))
	send(m, press("G"))
	if !strings.Contains(screen(m), "A team's shared history: postgres://") {
		t.Fatalf("the team row is not selected:\n%s", screen(m))
	}
	p := m.pages[pageSettings].(*settingsPage)
	send(m, press("enter"))
	p.input.SetValue("mysql://ann:s3cret@db-host/studio")
	send(m, press("enter"))
	if cmd := p.Update(press("s")); cmd != nil {
		t.Fatalf("a MySQL URL was taken: %v", cmd())
	}
	if got := screen(m); !strings.Contains(got, "is not a PostgreSQL URL") || strings.Contains(got, "s3cret") {
		t.Errorf("the refusal:\n%s", got)
	}

	send(m, press("enter"))
	// Port 1 on the loopback: nothing listens, the connection is refused.
	p.input.SetValue("postgres://ann:s3cret@127.0.0.1:1/studio")
	send(m, press("enter"))
	if !strings.Contains(screen(m), "postgres://ann@127.0.0.1:1/studio") || strings.Contains(screen(m), "s3cret") {
		t.Errorf("the row must show the URL without its password:\n%s", screen(m))
	}
	cmd := p.Update(press("s"))
	if cmd == nil {
		t.Fatalf("nothing tried: %s", p.problem)
	}
	msg, ok := cmd().(settingsRefusedMsg)
	if !ok || !strings.Contains(msg.text, "settings not saved") || !strings.Contains(msg.text, "cannot reach the server") ||
		!strings.Contains(msg.text, "postgres://ann@127.0.0.1:1/studio") || strings.Contains(msg.text, "s3cret") {
		t.Errorf("an unreachable server: %#v", msg)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the settings file was written though the team history could not be reached")
	}
}

// On a team's history the header says so, with the server and database,
// never the user or password.
func TestHeaderNamesTheTeamHistory(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	m.env.studio.Config.HistoryURL = "postgres://ann:s3cret@db-host:5432/studio"
	got := strings.SplitN(screen(m), "\n", 2)[0]
	if !strings.Contains(got, "TEAM  db-host/studio") || strings.Contains(got, "ann") || strings.Contains(got, "s3cret") {
		t.Errorf("header: %q", got)
	}
}

// The header gives its room by importance: a team history out of reach
// never gives way; the service's port, the database's host and the
// service's host go before the credits left, the database's name and the
// counts.
func TestHeaderGivesItsRoomByImportance(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	cfg := m.env.studio.Config
	cfg.BaseURL, cfg.APIKey = "http://127.0.0.1:18767", "k-1234567"
	cfg.HistoryURL = "postgres://ann:s3cret@127.0.0.1:5432/review_pw"
	m.account = &api.Credits{Remaining: 4200, HasConcurrency: true, Running: 1, Limit: 5}
	up, down := record.Reach{Up: true}, record.Reach{Since: testNow}
	out := "OUT OF REACH " + testNow.Local().Format("15:04")
	for _, c := range []struct {
		width int
		reach record.Reach
		want  string
	}{
		{140, up, " clapper  LIVE  127.0.0.1:18767  TEAM  127.0.0.1/review_pw                               1 running · 0 queued · limit 5 · 4200 credits left "},
		{140, down, " clapper  LIVE  127.0.0.1:18767  TEAM  127.0.0.1/review_pw " + out + "            1 running · 0 queued · limit 5 · 4200 credits left "},
		{100, down, " clapper  LIVE   TEAM  review_pw " + out + "        1 running · 0 queued · 4200 credits left "},
		{80, up, " clapper  LIVE   TEAM  review_pw       1 running · 0 queued · 4200 credits left "},
		{80, down, " clapper  LIVE   TEAM  review_pw " + out + "        1 running · 0 queued "},
		{60, down, " clapper  LIVE   TEAM  " + out + "                   "},
	} {
		got := ansi.Strip(headerLine(m.env.theme, cfg, c.width, "", c.reach, m.accountSummaries()))
		if got != c.want {
			t.Errorf("at %d columns:\n got %q\nwant %q", c.width, got, c.want)
		}
	}
}

// A save that reaches a team history says so while it waits (a server that
// accepts and never answers holds it for the whole timeout), and its
// refusal stays on the page and in ! when a task's notice takes the status
// line.
func TestSettingsTeamHistorySaysItChecksAndKeepsTheRefusal(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	path, _ := studio.SettingsPath()
	os.Remove(path)
	t.Cleanup(func() { os.Remove(path) })
	send(m, press("6"))
	send(m, press("G"))
	send(m, press("enter"))
	m.pages[pageSettings].(*settingsPage).input.SetValue("postgres://ann:s3cret@127.0.0.1:1/studio")
	send(m, press("enter"))
	_, check := m.Update(press("s"))
	if got := screen(m); !strings.Contains(got, "Checking the team history postgres://ann@127.0.0.1:1/studio…") ||
		strings.Contains(got, "s save") || strings.Contains(got, "s3cret") {
		t.Fatalf("while the history is reached:\n%s", got)
	}
	run(m, check)
	send(m, statusMsg{text: "text2video ✓ #9: 1 result saved"})
	got := screen(m)
	if !strings.Contains(got, "settings not saved: history postgres://ann@127.0.0.1:1/studio: cannot reach") || strings.Contains(got, "Checking") {
		t.Errorf("the refusal is not kept on the page:\n%s", got)
	}
	send(m, press("!"))
	if m.dialog() == nil {
		t.Fatalf("! opened nothing:\n%s", screen(m))
	}
	if got := ansi.Strip(m.dialog().View(m.env.theme, 80)); !strings.Contains(got, "settings not saved") || !strings.Contains(got, "1 result saved") {
		t.Errorf("! lost the refusal to the task's notice:\n%s", got)
	}
}

// At 80 columns a team history given by --history-url still says where it
// came from: the URL gives way to the note.
func TestSettingsTeamHistoryFromTheFlagSaysSoAt80Columns(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	cfg := &m.env.studio.Config
	cfg.HistoryURL, cfg.HistoryURLSource = "postgres://postgres@127.0.0.1:55432/review_pw?sslmode=disable", studio.FromFlag
	p := m.pages[pageSettings].(*settingsPage)
	p.discard()
	send(m, press("6"))
	send(m, press("G"))
	if got := screen(m); !strings.Contains(got, "Team history        postgres://postgres@127.0… (from --history-url; not saved)\n") {
		t.Errorf("the row:\n%s", got)
	}
}

// ! shows the newest messages that fit the screen, the newest whole: four
// reasons of five lines each would run off an 80x24 screen.
func TestMessagesFitTheScreen(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	for i := range 4 {
		send(m, statusMsg{text: fmt.Sprintf("reason %d: ", i) + strings.Repeat("the server did not answer ", 12), bad: true})
	}
	send(m, press("!"))
	got := ansi.Strip(m.dialog().View(m.env.theme, 80))
	if h := strings.Count(got, "\n") + 1; h > 24 || !strings.Contains(got, "reason 3") || strings.Contains(got, "reason 0") || !strings.Contains(got, "esc closes") {
		t.Errorf("%d lines:\n%s", h, got)
	}
}

// A team's Tasks list names who sent each task (the user; the detail has
// the machine) where it has the room, from 120 columns; a person's own
// history has no such column.
func TestTeamTasksNameTheSender(t *testing.T) {
	for _, c := range []struct {
		team  bool
		width int
		want  bool
	}{{true, 140, true}, {true, 119, false}, {false, 140, false}} {
		m, _ := newTestModel(t, c.width, 30)
		if c.team {
			m.env.studio.Config.HistoryURL = "postgres://db-host/studio"
		}
		send(m, tea.WindowSizeMsg{Width: c.width, Height: 30})
		var header, annRow string
		for _, line := range strings.Split(screen(m), "\n") {
			if strings.Contains(line, "PROMPT OR SUBJECT") {
				header = line
			}
			if strings.Contains(line, "a red fox") {
				annRow = line
			}
		}
		has := strings.HasSuffix(strings.TrimRight(header, " "), "URLS") && strings.Contains(header, " BY ")
		if has != c.want || (c.want && !strings.Contains(annRow, " ann ")) {
			t.Errorf("team %v at %d columns: header %q, ann's row %q; want the sender named: %v", c.team, c.width, header, annRow, c.want)
		}
	}
}

// A team URL opened again to edit never shows its password: it reads
// (kept), and a URL saved with (kept) in its place keeps the password it
// had; another typed there is the new one.
func TestSettingsTeamHistoryEditKeepsThePasswordOffTheScreen(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	send(m, press("6"))
	send(m, press("G"))
	p := m.pages[pageSettings].(*settingsPage)
	send(m, press("enter"))
	p.input.SetValue("postgres://ann:s3cret@db-host:5432/studio")
	send(m, press("enter"))
	send(m, press("enter")) // open it again
	if got := screen(m); strings.Contains(got, "s3cret") || !strings.Contains(got, "postgres://ann:(kept)@db-host:5432/studio") {
		t.Fatalf("the URL opened again:\n%s", got)
	}
	p.input.SetValue(strings.Replace(p.input.Value(), "db-host", "db-2", 1))
	send(m, press("enter"))
	if got := p.draft.HistoryURL; got != "postgres://ann:s3cret@db-2:5432/studio" {
		t.Errorf("saved over (kept): %q, want the password kept", got)
	}
	send(m, press("enter"))
	p.input.SetValue("postgres://ann:n3w@db-2:5432/studio")
	send(m, press("enter"))
	if got := p.draft.HistoryURL; got != "postgres://ann:n3w@db-2:5432/studio" {
		t.Errorf("a new password typed: %q", got)
	}
}
