package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/studio"
)

// The header of a live backend shows the account as the service counts it
// (GET /ent/v2/credits): credits left, tasks running and queued, the
// concurrency limit. The sandbox's header keeps the local counts.

// accountEvery is how often the account is read again: one cheap read a
// minute; healthEvery how often while the last read failed, so that the
// badge goes as soon as the service is back.
const (
	accountEvery = time.Minute
	healthEvery  = 15 * time.Second
)

// health is what the reads of a live service said of the link to it: a
// refused key or a service out of reach (studio.HealthOf), since when.
// While it is bad, nothing is known of the tasks in flight: their clocks
// stop at since.
type health struct {
	problem string
	since   time.Time
}

// note takes what a read said: a success clears the badge, a failure that
// tells of the link sets it (keeping when it began).
func (h *health) note(err error, now time.Time) {
	if err == nil {
		*h = health{}
		return
	}
	if p := studio.HealthOf(err); p != "" && p != h.problem {
		*h = health{problem: p, since: now}
	}
}

// badge is the header's word for it ("" when all is well).
func (h health) badge() string {
	switch h.problem {
	case "":
		return ""
	case studio.Unreachable:
		return h.problem + " since " + h.since.Local().Format("15:04")
	}
	return h.problem
}

// clock is the time a task in flight has run to: now, or when the link
// was lost.
func (h health) clock(now time.Time) time.Time {
	if h.problem != "" && h.since.Before(now) {
		return h.since
	}
	return now
}

// accountLoadedMsg carries a read of the account of the studio s.
type accountLoadedMsg struct {
	s       *studio.Studio
	credits *api.Credits
	err     error
	extra   bool // a read after a change (accountSoonMsg): no timer follows
}

// accountDueMsg asks for the next read.
type accountDueMsg struct{ s *studio.Studio }

// accountSoonMsg asks for a read after a change: a task sent, started or
// ended moves the service's counts, and a header that waited for the
// minute's read said "0 running" beside a task processing, or "2 running"
// with nothing in flight. On a team's database the read is the poller's
// kept one, which its reads of the counts keep fresh.
type accountSoonMsg struct{ s *studio.Studio }

// accountSoonAfter gathers the changes of a burst into one read.
const accountSoonAfter = 2 * time.Second

// readAccountSoon asks for a read of the account shortly, unless one is
// asked for already (or the backend is the sandbox, whose header counts
// its own tasks).
func (m *Model) readAccountSoon() tea.Cmd {
	if m.accountSoon || m.env.studio == nil || m.env.studio.Sandbox() {
		return nil
	}
	m.accountSoon = true
	return m.env.timers.after(accountSoonAfter, accountSoonMsg{s: m.env.studio})
}

// accountAnswerWithin is how long a read of the account may take before
// the header says the service is out of reach: a service that takes the
// connection and never answers would otherwise say nothing for the whole
// request timeout (a minute by default), while every send and read hangs.
const accountAnswerWithin = 10 * time.Second

func loadAccount(e *env) tea.Cmd {
	ctx, s, within := e.ctx, e.studio, e.answerWithin
	if s.Sandbox() {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		c, err := s.Account(ctx)
		return accountLoadedMsg{s: s, credits: c, err: err}
	}
}

// loadAccountNow is loadAccount for a read after a change: its answer
// updates the header and leaves the minute's reads to their own timer.
func loadAccountNow(e *env) tea.Cmd {
	read := loadAccount(e)
	if read == nil {
		return nil
	}
	return func() tea.Msg {
		msg := read().(accountLoadedMsg)
		msg.extra = true
		return msg
	}
}

// onAccount keeps a read of the current backend's account and schedules
// the next; reads of a backend no longer running are dropped.
func (m *Model) onAccount(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case accountLoadedMsg:
		if msg.s != m.env.studio {
			return nil
		}
		if msg.err == nil {
			m.account = msg.credits
		}
		m.env.health.note(msg.err, m.env.now())
		if msg.extra {
			return nil
		}
		next := accountEvery
		if m.env.health.problem != "" {
			next = healthEvery
		}
		return m.env.timers.after(next, accountDueMsg{s: msg.s})
	case accountDueMsg:
		if msg.s != m.env.studio {
			return nil
		}
		return loadAccount(m.env)
	case accountSoonMsg:
		m.accountSoon = false
		if msg.s != m.env.studio {
			return nil
		}
		return loadAccountNow(m.env)
	}
	return nil
}

// accountSummaries are the header's right side from the account, longest
// first; nil when the account is not known.
func (m *Model) accountSummaries() []string {
	a := m.account
	if a == nil {
		return nil
	}
	th := m.env.theme
	dot := th.Dim.Render(" · ")
	left := credits(int64(a.Remaining)) + th.Dim.Render(" left ")
	// With a daily cap, the day's spending against it leads while there is
	// room: what the account has left is not what the cap lets through.
	capped := ""
	if c := m.env.studio.Config.DailyCreditCap; c > 0 && m.statsLoaded {
		capped = fmt.Sprintf("%d/%d cr", m.creditsToday, c) + th.Dim.Render(" today") + dot
	}
	if !a.HasConcurrency {
		return []string{capped + left, left}
	}
	run := th.Running.Render(fmt.Sprintf("%d running", a.Running))
	return []string{
		run + dot + fmt.Sprintf("%d queued", a.Queued) + th.Dim.Render(fmt.Sprintf(" · limit %d · ", a.Limit)) + capped + left,
		run + dot + fmt.Sprintf("%d queued", a.Queued) + dot + capped + left,
		run + dot + fmt.Sprintf("%d queued", a.Queued) + dot + left,
		run + dot + fmt.Sprintf("%d queued ", a.Queued),
	}
}
