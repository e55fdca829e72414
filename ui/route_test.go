package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// echoPage wraps a page and counts the messages of a test type it is handed.
type echoPage struct {
	page
	got []echoMsg
}

// echoMsg is a message the root does not know: a child's own.
type echoMsg struct{ n int }

func (s *echoPage) Update(msg tea.Msg) tea.Cmd {
	if e, ok := msg.(echoMsg); ok {
		s.got = append(s.got, e)
		if e.n == 0 {
			// The page's command answers with another message of its own.
			return func() tea.Msg { return echoMsg{n: 1} }
		}
		return nil
	}
	return s.page.Update(msg)
}

// A child's command answers to that child alone, by its address, even
// from a page that is not in front; nothing unknown is broadcast to every
// page.
func TestAChildsMessagesComeBackToItAlone(t *testing.T) {
	m, _ := newTestModel(t, 100, 30)
	spies := make([]*echoPage, len(m.pages))
	for i, p := range m.pages {
		spies[i] = &echoPage{page: p}
		m.pages[i] = spies[i]
	}
	// The Voices page (hidden) is handed a message and its command runs.
	run(m, m.toPage(pageVoices, echoMsg{n: 0}))
	for i, s := range spies {
		want := 0
		if i == pageVoices {
			want = 2 // the message, then its command's answer
		}
		if len(s.got) != want {
			t.Errorf("page %d got %v, want %d messages", i, s.got, want)
		}
	}
	// A message addressed to nobody goes to the page in front only.
	for _, s := range spies {
		s.got = nil
	}
	send(m, echoMsg{n: 5})
	for i, s := range spies {
		want := 0
		if i == m.active {
			want = 1
		}
		if len(s.got) != want {
			t.Errorf("unaddressed: page %d got %v, want %d", i, s.got, want)
		}
	}
}
