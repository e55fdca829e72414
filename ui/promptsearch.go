package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
)

// promptSearch is ctrl+p in a form's prompt: earlier prompts from history,
// starred ones first, then newest first, narrowed fuzzily as the user
// types, this operation's by default (tab: every operation's). While the
// pattern is empty the operation's last sent request leads, so ctrl+p,
// enter fills the whole form with it as before. It answers the New page
// with a message (a prompt chosen, the last request wanted); ctrl+b stars
// the highlighted prompt in history.
type promptSearch struct {
	env   *env
	keys  promptSearchKeys
	op    api.Operation
	field string // the form's field a chosen prompt goes into
	// last is the last sent request's text for field, hasLast whether the
	// operation has a last sent request at all.
	last    string
	hasLast bool

	input   textinput.Model
	all     bool
	prompts []record.Prompt
	cursor  int // over entries(): the last sent request first when shown
	scroll  int
	// asked numbers the queries; answered is the one on screen, so an
	// answer that comes after a newer question is dropped.
	asked, answered int
	problem         string

	width, height int
}

type promptSearchKeys struct {
	Up, Down, Choose, Scope, Star, Close key.Binding
}

func (k promptSearchKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Choose, k.Scope, k.Star, k.Close}
}

// Name titles the help while these keys are in force.
func (k promptSearchKeys) Name() string { return "earlier prompts" }

func (k promptSearchKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Choose}, {k.Scope, k.Star, k.Close}}
}

type (
	// promptsFoundMsg answers the search's query number asked.
	promptsFoundMsg struct {
		asked   int
		prompts []record.Prompt
		err     error
	}
	// promptStarredMsg: a star was given or taken in history.
	promptStarredMsg struct {
		text string
		on   bool
		err  error
	}
	// promptChosenMsg asks the New page to put text into the form's field.
	promptChosenMsg struct{ field, text string }
	// lastSentWantedMsg asks the New page to fill the form with the
	// operation's last sent request.
	lastSentWantedMsg struct{ op api.Operation }
)

func newPromptSearch(e *env, op api.Operation, field, last string, hasLast bool) *promptSearch {
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = "type to narrow: the letters in order"
	in.Focus()
	return &promptSearch{env: e, op: op, field: field, last: last, hasLast: hasLast, input: in, keys: promptSearchKeys{
		Up:     key.NewBinding(key.WithKeys("up", "ctrl+k"), key.WithHelp("↑", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "ctrl+j"), key.WithHelp("↓", "down")),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "put in "+field)),
		Scope:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "all operations")),
		Star:   key.NewBinding(key.WithKeys("ctrl+b"), key.WithHelp("ctrl+b", "star")),
		Close:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}}
}

func (s *promptSearch) Init() tea.Cmd { return s.query() }

func (s *promptSearch) SetSize(w, h int) {
	s.width, s.height = w, h
	s.input.SetWidth(max(w-4, 10))
}

// Help is the search's keys as they work now.
func (s *promptSearch) Help() promptSearchKeys {
	k := s.keys
	if s.all {
		k.Scope.SetHelp("tab", "only "+string(s.op))
	}
	p, ok := s.selected()
	k.Star.SetEnabled(ok)
	if ok && p.Starred {
		k.Star.SetHelp("ctrl+b", "unstar")
	}
	k.Choose.SetEnabled(len(s.prompts) > 0 || s.showsLast())
	if s.showsLast() && s.cursor == 0 {
		k.Choose.SetHelp("enter", "fill the form with it")
	}
	return k
}

// query asks history for the prompts matching what is typed.
func (s *promptSearch) query() tea.Cmd {
	s.asked++
	asked, ctx, store := s.asked, s.env.ctx, s.env.store()
	q := record.PromptQuery{Pattern: s.input.Value()}
	if !s.all {
		q.Operation = s.op
	}
	return func() tea.Msg {
		ps, err := store.SearchPrompts(ctx, q)
		return promptsFoundMsg{asked: asked, prompts: ps, err: err}
	}
}

// showsLast: the last sent request leads the list while nothing is typed.
func (s *promptSearch) showsLast() bool { return s.hasLast && s.input.Value() == "" }

func (s *promptSearch) entries() int {
	n := len(s.prompts)
	if s.showsLast() {
		n++
	}
	return n
}

// selected is the highlighted earlier prompt (not the last sent request).
func (s *promptSearch) selected() (record.Prompt, bool) {
	i := s.cursor
	if s.showsLast() {
		i--
	}
	if i < 0 || i >= len(s.prompts) {
		return record.Prompt{}, false
	}
	return s.prompts[i], true
}

// Update handles keys and answers; done reports that the search closed.
func (s *promptSearch) Update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case promptsFoundMsg:
		if msg.asked != s.asked {
			return nil, false // a newer question is on its way
		}
		s.answered, s.problem = msg.asked, ""
		if msg.err != nil {
			s.problem = "earlier prompts could not be read: " + api.CleanLine(msg.err.Error())
		}
		s.prompts = msg.prompts
		s.cursor = min(s.cursor, max(s.entries()-1, 0))
		return nil, false
	case promptStarredMsg:
		if msg.err != nil {
			return statusErr(fmt.Errorf("the star could not be kept: %w", msg.err)), false
		}
		word := "starred: it comes first"
		if !msg.on {
			word = "star taken away"
		}
		return tea.Batch(s.query(), status(word)), false
	case tea.KeyPressMsg:
		return s.onKey(msg)
	}
	before := s.input.Value()
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg) // a paste
	if s.input.Value() != before {
		s.cursor, s.scroll = 0, 0
		return tea.Batch(cmd, s.query()), false
	}
	return cmd, false
}

func (s *promptSearch) onKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, s.keys.Close):
		return nil, true
	case key.Matches(msg, s.keys.Up):
		s.cursor = max(s.cursor-1, 0)
		return nil, false
	case key.Matches(msg, s.keys.Down):
		s.cursor = min(s.cursor+1, max(s.entries()-1, 0))
		return nil, false
	case key.Matches(msg, s.keys.Scope):
		s.all = !s.all
		s.cursor, s.scroll = 0, 0
		return s.query(), false
	case key.Matches(msg, s.keys.Star):
		return s.star(), false
	case key.Matches(msg, s.keys.Choose):
		if s.showsLast() && s.cursor == 0 {
			op := s.op
			return func() tea.Msg { return lastSentWantedMsg{op} }, true
		}
		p, ok := s.selected()
		if !ok {
			return nil, false
		}
		chosen := promptChosenMsg{field: s.field, text: p.Text}
		return func() tea.Msg { return chosen }, true
	}
	before := s.input.Value()
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	if s.input.Value() != before {
		s.cursor, s.scroll = 0, 0
		return tea.Batch(cmd, s.query()), false
	}
	return cmd, false
}

// star gives the highlighted prompt a star, or takes it away, in history;
// the list is read again once it is kept.
func (s *promptSearch) star() tea.Cmd {
	p, ok := s.selected()
	if !ok {
		return nil
	}
	ctx, store, at, on := s.env.ctx, s.env.store(), s.env.now(), !p.Starred
	return func() tea.Msg {
		return promptStarredMsg{text: p.Text, on: on, err: store.StarPrompt(ctx, p.Text, on, at)}
	}
}

func (s *promptSearch) View() string {
	th := s.env.theme
	scope := string(s.op)
	if s.all {
		scope = "all operations"
	}
	title := th.Title.Render("Earlier prompts") + th.Dim.Render(" · "+scope+" · into "+s.field)
	lines := []string{title, s.input.View(), ""}
	if s.problem != "" {
		lines = append(lines, th.Error.Render(wrap(s.problem, s.width)))
	}
	rows := max(s.height-len(lines)-1, 1)
	n := s.entries()
	if n == 0 && s.answered > 0 {
		empty := "No earlier prompt matches."
		if s.input.Value() == "" {
			empty = "No earlier prompt for " + scope + " yet: prompts are remembered as they are sent."
		}
		if !s.all {
			empty += " tab searches all operations."
		}
		lines = append(lines, th.Dim.Render(wrap(empty, max(s.width-2, 20))))
	}
	if s.cursor < s.scroll {
		s.scroll = s.cursor
	}
	if s.cursor >= s.scroll+rows {
		s.scroll = s.cursor - rows + 1
	}
	for i := s.scroll; i < min(n, s.scroll+rows); i++ {
		lines = append(lines, s.row(i))
	}
	if n > s.scroll+rows {
		lines = append(lines, th.Dim.Render(fmt.Sprintf("  … %d more", n-s.scroll-rows)))
	}
	return strings.Join(lines, "\n")
}

// row draws entry i: a marker, the star, the prompt on one line, and when
// (with the operation, when searching all) on the right.
func (s *promptSearch) row(i int) string {
	th := s.env.theme
	marker, style := "  ", th.Strong.Bold(false)
	if i == s.cursor {
		marker, style = th.Marker.Render("▌ "), th.Selected
	}
	if s.showsLast() {
		if i == 0 {
			right := th.Dim.Render("  the whole form")
			text := "↺ last sent request"
			if s.last != "" {
				text += ": " + api.CleanLine(s.last)
			}
			return marker + style.Render(textutil.Fit(text, max(s.width-2-textutil.Width(right), 10))) + right
		}
		i--
	}
	p := s.prompts[i]
	when := p.UsedAt.In(s.env.now().Location()).Format("Jan 2 15:04")
	if s.all {
		when = string(p.Operation) + " · " + when
	}
	right := th.Dim.Render("  " + when)
	star := "  "
	if p.Starred {
		star = th.Warning.Render("★ ")
	}
	text := textutil.Fit(api.CleanLine(p.Text), max(s.width-4-textutil.Width(right), 10))
	return marker + star + s.highlight(text, style) + right
}

// highlight draws text with the letters the pattern matched in the accent
// colour: the first of each in turn, as history's match takes them (see
// record.PromptQuery; only ASCII letters fold).
func (s *promptSearch) highlight(text string, style lipgloss.Style) string {
	pattern := strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, s.input.Value())
	if pattern == "" {
		return style.Render(text)
	}
	want := []rune(pattern)
	hit := style.Foreground(s.env.theme.Accent).Bold(true).Underline(true)
	var b, run strings.Builder
	flush := func() {
		if run.Len() > 0 {
			b.WriteString(style.Render(run.String()))
			run.Reset()
		}
	}
	for _, r := range text {
		folded := r
		if r >= 'A' && r <= 'Z' {
			folded = r + 'a' - 'A'
		}
		if len(want) > 0 && folded == want[0] {
			flush()
			b.WriteString(hit.Render(string(r)))
			want = want[1:]
			continue
		}
		run.WriteRune(r)
	}
	flush()
	return b.String()
}
