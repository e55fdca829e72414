package ui

import (
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
// minute.
const accountEvery = time.Minute

// accountLoadedMsg carries a read of the account of the studio s.
type accountLoadedMsg struct {
	s       *studio.Studio
	credits *api.Credits
	err     error
}

// accountDueMsg asks for the next read.
type accountDueMsg struct{ s *studio.Studio }

func loadAccount(e *env) tea.Cmd {
	ctx, s := e.ctx, e.studio
	if s.Sandbox() {
		return nil
	}
	return func() tea.Msg {
		c, err := s.Account(ctx)
		return accountLoadedMsg{s: s, credits: c, err: err}
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
		return m.env.timers.after(accountEvery, accountDueMsg{s: msg.s})
	case accountDueMsg:
		if msg.s != m.env.studio {
			return nil
		}
		return loadAccount(m.env)
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
	if !a.HasConcurrency {
		return []string{left}
	}
	run := th.Running.Render(fmt.Sprintf("%d running", a.Running))
	return []string{
		run + dot + fmt.Sprintf("%d queued", a.Queued) + th.Dim.Render(fmt.Sprintf(" · limit %d · ", a.Limit)) + left,
		run + dot + fmt.Sprintf("%d queued", a.Queued) + dot + left,
		run + dot + fmt.Sprintf("%d queued ", a.Queued),
	}
}
