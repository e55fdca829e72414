package ui

import (
	"fmt"
	"net"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

// The root's screen: the header, the page or detail on screen, the status
// line and help, laid out by the root alone.

func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = m.windowTitle()
	if m.detail() != nil {
		if pb := m.detail().progressBar(); pb != nil {
			v.ProgressBar = pb
		}
	}
	return v
}

func (m *Model) render() string {
	if m.width == 0 {
		return ""
	}
	if m.width < minWidth || m.height < minHeight {
		msg := fmt.Sprintf("clapper needs a terminal of at least %dx%d; this one is %dx%d. Enlarge it (ctrl+c quits).",
			minWidth, minHeight, m.width, m.height)
		return m.env.theme.Warning.Render(wrap(msg, m.width))
	}
	th := m.env.theme
	body := ""
	h := max(m.height-headerHeight-footerHeight, 1)
	switch front := m.front(); {
	case m.showHelp:
		body = m.fullHelp()
	case front != nil:
		body = front.View()
	default:
		body = m.pages[m.active].View()
	}
	body = m.fitting.clampBlock(body, m.width, h)
	if now := m.env.now(); !m.chrome.valid || now.Sub(m.chrome.at) >= time.Second || now.Before(m.chrome.at) {
		m.chrome = chrome{header: m.header(), footer: m.footer(), at: now, valid: true}
	}
	screen := m.chrome.header + "\n" + body + "\n" + m.chrome.footer
	if m.dialog() != nil {
		d := m.dialog().View(th, m.width)
		x := max((m.width-lipgloss.Width(d))/2, 0)
		y := max((m.height-lipgloss.Height(d))/2, 0)
		screen = lipgloss.NewCompositor(lipgloss.NewLayer(screen), lipgloss.NewLayer(d).X(x).Y(y).Z(1)).Render()
	}
	return screen
}

// chrome is the header and the footer last drawn. A tick (tickMsg) changes
// neither: what moves by itself is in the body. So a tick reuses them,
// for up to a second (a tab's count of voices about to expire follows the
// clock, by the minute); any other message has them drawn again.
type chrome struct {
	header, footer string
	at             time.Time
	valid          bool
}

func (m *Model) header() string {
	th := m.env.theme
	s := m.env.studio
	reach := record.Reach{Up: true}
	if s.Config.Team() {
		reach = s.HistoryReach()
	}
	var summaries []string
	if m.account != nil {
		summaries = m.accountSummaries()
	} else if m.statsLoaded {
		dot := th.Dim.Render(" · ")
		run := th.Running.Render(fmt.Sprintf("%d running", m.running))
		today, short := credits(m.creditsToday), fmt.Sprintf("%d cr", m.creditsToday)
		if c := s.Config.DailyCreditCap; c > 0 {
			// Against the cap, the day's figure says how much is left to send.
			today, short = fmt.Sprintf("%d of %s", m.creditsToday, credits(c)), fmt.Sprintf("%d/%d cr", m.creditsToday, c)
		}
		summaries = []string{
			run + dot + fmt.Sprintf("%d queued", m.queued) + th.Dim.Render(" · limit 5 · ") + today + th.Dim.Render(" today "),
			run + dot + fmt.Sprintf("%d queued", m.queued) + dot + short + " today ",
			run + dot + fmt.Sprintf("%d queued ", m.queued),
		}
	}
	titles := make([]string, len(m.pages))
	for i, p := range m.pages {
		titles[i] = p.Title()
	}
	lit := m.active
	if m.front() != nil {
		lit = -1
	}
	return headerLine(th, s.Config, m.width, m.env.health.badge(), reach, summaries) + "\n" + tabLine(th, titles, lit, m.width) + "\n" +
		th.Faint.Render(strings.Repeat("─", m.width))
}

// headerLine is the header's first line: the brand on the left, the
// longest fitting summary of the account (from the most to the least
// said) on the right. Where it does not fit, it gives its room by
// importance. The states that come and go (a live service's trouble, a
// team history out of reach) never give way: they are why one looks.
// What the user set up and knows gives first: the summary's detail, the
// sandbox's note, the service's port, the database's host, the service's
// host; then the credits left, the database's name, and the counts.
func headerLine(th *Theme, cfg studio.Config, width int, health string, reach record.Reach, summaries []string) string {
	b := brandParts{note: width >= 90, port: true, host: true, dbHost: true, db: true}
	sum := 0
	try := func() (string, bool) {
		left, right := brand(th, cfg, b, health, reach), ""
		if sum < len(summaries) {
			right = summaries[sum]
		}
		return textutil.JoinEnds(left, right, width), lipgloss.Width(left)+lipgloss.Width(right)+1 <= width
	}
	var steps []func()
	for range len(summaries) - 2 { // down to the last that names the credits
		steps = append(steps, func() { sum++ })
	}
	steps = append(steps, func() { b.note = false }, func() { b.port = false }, func() { b.dbHost = false },
		func() { b.host = false }, func() { sum = max(len(summaries)-1, sum) }, func() { b.db = false },
		func() { sum = len(summaries) })
	line, fits := try()
	for _, step := range steps {
		if fits {
			break
		}
		step()
		line, fits = try()
	}
	return line
}

// brandParts says which parts of the brand are drawn.
type brandParts struct {
	note       bool // the sandbox's "results are simulated"
	host, port bool // a live service's host, and its port
	db, dbHost bool // a team database's name, and its host
}

// brand is the header's left end: the name, the backend (a live one's
// trouble, health), and a team's history (its reach).
func brand(th *Theme, cfg studio.Config, b brandParts, health string, reach record.Reach) string {
	left := th.Title.Render(" clapper ")
	if !cfg.Live() {
		left += th.Badge.Render("SANDBOX")
		if b.note {
			left += th.Dim.Render(" results are simulated")
		}
	} else {
		left += th.LiveBadge.Render("LIVE")
		if b.host {
			host := cfg.Backend()
			if h, _, err := net.SplitHostPort(host); err == nil && !b.port {
				host = h
			}
			left += " " + th.Strong.Render(api.CleanLine(host))
		}
		if health != "" {
			left += " " + th.Error.Render(health)
		}
	}
	if cfg.Team() {
		// Which history is shown matters as much as which service: a
		// team's list holds its colleagues' tasks too.
		left += " " + th.Badge.Render("TEAM")
		if b.db {
			name := strings.TrimPrefix(cfg.HistoryName(), "TEAM ")
			if _, db, ok := strings.Cut(name, "/"); ok && !b.dbHost {
				name = db
			}
			left += " " + th.Strong.Render(api.CleanLine(name))
		}
		if !reach.Up {
			left += " " + th.Error.Render("OUT OF REACH "+reach.Since.Local().Format("15:04"))
		}
	}
	return left
}

// tabLine is the header's tabs, the page shown lit (none when lit is -1).
func tabLine(th *Theme, titles []string, lit, width int) string {
	tabs := make([]string, len(titles))
	for i, t := range titles {
		label := string(rune('1'+i)) + " " + t
		if i == lit {
			tabs[i] = th.TabActive.Render(label)
		} else {
			tabs[i] = th.Tab.Render(label)
		}
	}
	return textutil.Cut(" "+strings.Join(tabs, ""), width)
}

func (m *Model) footer() string {
	th := m.env.theme
	status := ""
	if m.statusText != "" {
		if m.statusBad {
			status = th.Error.Render(" " + m.statusText)
		} else {
			status = th.Success.Render(" " + m.statusText)
		}
	}
	if m.statusText != "" && lipgloss.Width(status) > m.width {
		// The rest is one key away, never lost.
		more := " ! all"
		status = textutil.Cut(status, m.width-len(more)) + th.Key.Render(more)
	}
	if m.dialog() != nil {
		// A dialog takes every key and names its own in its box: the
		// page's keys under it would do nothing (? and q included).
		return status + "\n"
	}
	global := m.help.ShortHelpView([]key.Binding{m.keys.Help, m.keys.Quit})
	if m.capturing() {
		global = m.help.ShortHelpView([]key.Binding{typingHelpKey})
	}
	local := fitShortHelp(m.help, m.screenKeys().ShortHelp(), max(m.width-lipgloss.Width(global)-3, 10))
	return status + "\n" + textutil.JoinEnds(" "+local, global+" ", m.width)
}

// fitShortHelp is the screen's keys that fit in w columns, whole, then "…"
// when some are left out. bubbles' own cut adds the key that passes the
// width when the ellipsis would not fit either, and the line's end was
// then cut inside a word ("d forge…" for d forget).
//
// Something follows the line (the global keys, a space after w): a line
// of every key leaves the room of a separator before it, as between two
// keys ("o operation filter ? help" read as one key); a cut line's " …"
// and that space already make a separator's shape.
func fitShortHelp(h help.Model, bindings []key.Binding, w int) string {
	h.SetWidth(0)
	var on []key.Binding
	for _, b := range bindings {
		if b.Enabled() {
			on = append(on, b)
		}
	}
	if line := h.ShortHelpView(on); lipgloss.Width(line)+lipgloss.Width(h.ShortSeparator)-1 <= w {
		return line
	}
	more := " " + h.Styles.Ellipsis.Render(h.Ellipsis)
	for n := len(on) - 1; n > 0; n-- {
		if line := h.ShortHelpView(on[:n]) + more; lipgloss.Width(line) <= w {
			return line
		}
	}
	return ""
}

func (m *Model) screenKeys() help.KeyMap {
	if front := m.front(); front != nil {
		return front.Help()
	}
	return m.pages[m.active].Help()
}

func (m *Model) fullHelp() string {
	th := m.env.theme
	// Two columns: in one, the global keys would push the closing hint off
	// an 80x24 screen under a list's six navigation rows.
	global := [][]key.Binding{{m.keys.Next, m.keys.Prev, m.keys.Jump, m.keys.New}, {m.keys.Message, m.keys.Help, m.keys.Quit}}
	if m.capturing() {
		// Page keys are text in an input: list only what works here.
		global = [][]key.Binding{{typingHelpKey, typingQuitKey}}
	}
	hm := help.New()
	hm.Styles = th.Help
	keys := m.screenKeys()
	title := m.pages[m.active].Title()
	switch m.front().(type) {
	case *detailModel:
		title = "task detail"
	case *contactSheet:
		title = "contact sheet"
	}
	if named, ok := keys.(interface{ Name() string }); ok {
		title = named.Name() // a screen open over the page, its keys in force
	}
	return th.Section.Render(" Keys: "+title) + "\n\n" + indent(helpRows(hm, keys.FullHelp(), m.width-1), 1) +
		"\n\n" + th.Section.Render(" Everywhere") + "\n\n" + indent(helpRows(hm, global, m.width-1), 1) +
		"\n\n" + th.Dim.Render(" ?, f1 or esc closes this help")
}

// helpRows lays a full help's columns side by side while they fit the
// width, and the rest in rows below: help's own view cuts the columns past
// the width to "…", and a key the help does not show is a key not known.
func helpRows(hm help.Model, groups [][]key.Binding, width int) string {
	hm.SetWidth(0) // measured here, never cut
	var rows []string
	var row [][]key.Binding
	for _, g := range groups {
		if len(row) > 0 && lipgloss.Width(hm.FullHelpView(append(row[:len(row):len(row)], g))) > width {
			rows = append(rows, hm.FullHelpView(row))
			row = nil
		}
		row = append(row, g)
	}
	return strings.Join(append(rows, hm.FullHelpView(row)), "\n\n")
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
