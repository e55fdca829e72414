package ui

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
)

// voicesPage is the voice library: every cloned voice history holds (not
// forgotten), how long each has before the service deletes it, and what to
// do with it. It also keeps the expiry reminders (voicereminders.go).
type voicesPage struct {
	env           *env
	keys          voicesKeys
	voices        []record.Voice // in display order
	loaded        bool
	err           error
	cursor        int
	scroll        int
	width, height int
	rem           reminders
	subjects      subjectsPanel
}

type voicesLoadedMsg struct {
	voices []record.Voice
	err    error
}

type voicesKeys struct {
	Up, Down, Top, Bottom, Play, Speak, LipSync, Subject, Clone, Forget key.Binding
	// Subjects are the stored-subject library's keys (subjects.go).
	Subjects subjectsKeys
}

func newVoicesKeys() voicesKeys {
	return voicesKeys{
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
		Play:     key.NewBinding(key.WithKeys("p", "enter"), key.WithHelp("p", "play")),
		Speak:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "speak")),
		LipSync:  key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "lip-sync")),
		Subject:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "subject")),
		Clone:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "clone")),
		Forget:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "forget")),
		Subjects: newSubjectsKeys(),
	}
}

func (k voicesKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Speak, k.Play, k.LipSync, k.Subject, k.Clone, k.Forget, k.Subjects.New}
}

func (k voicesKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}, {k.Play, k.Speak, k.LipSync, k.Subject}, {k.Clone, k.Forget},
		{k.Subjects.Prev, k.Subjects.Next, k.Subjects.New, k.Subjects.Edit, k.Subjects.Sync}}
}

func newVoicesPage(e *env) *voicesPage {
	return &voicesPage{env: e, keys: newVoicesKeys(), rem: newReminders(), subjects: subjectsPanel{env: e}}
}

// Title carries the badge: how many voices the service deletes within 24 h
// unless they are used.
func (p *voicesPage) Title() string {
	if n := p.expiringSoon(); n > 0 {
		return fmt.Sprintf("%s (%d)", pageTitles[pageVoices], n)
	}
	return pageTitles[pageVoices]
}

func (p *voicesPage) Capturing() bool  { return false }
func (p *voicesPage) SetSize(w, h int) { p.width, p.height = w, h }
func (p *voicesPage) Init() tea.Cmd    { return p.refresh() }
func (p *voicesPage) reopen() tea.Cmd  { return p.refresh() }

// Help enables only what applies to the selected voice: a voice the service
// deleted can no longer speak, and only a voice with a preview plays one.
func (p *voicesPage) Help() help.KeyMap {
	k := p.keys
	v, ok := p.selected()
	usable := ok && !v.Expired(p.env.now())
	k.Up.SetEnabled(len(p.voices) > 1)
	k.Down.SetEnabled(len(p.voices) > 1)
	k.Top.SetEnabled(len(p.voices) > 1)
	k.Bottom.SetEnabled(len(p.voices) > 1)
	k.Play.SetEnabled(ok && v.DemoAudio != "")
	k.Speak.SetEnabled(usable)
	k.LipSync.SetEnabled(usable)
	k.Subject.SetEnabled(usable)
	k.Forget.SetEnabled(ok)
	p.subjects.enable(&k.Subjects)
	return k
}

func (p *voicesPage) shows() changes { return changedVoices }

func (p *voicesPage) refresh() tea.Cmd {
	ctx, store := p.env.ctx, p.env.store()
	return tea.Batch(func() tea.Msg {
		vs, err := store.Voices(ctx)
		return voicesLoadedMsg{vs, err}
	}, p.subjects.load())
}

func (p *voicesPage) selected() (record.Voice, bool) {
	if p.cursor < 0 || p.cursor >= len(p.voices) {
		return record.Voice{}, false
	}
	return p.voices[p.cursor], true
}

func (p *voicesPage) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case voicesLoadedMsg:
		return p.onLoaded(msg)
	case subjectsLoadedMsg:
		p.subjects.onLoaded(msg)
		return nil
	case subjectNotSavedMsg:
		return p.subjects.onNotSaved(msg)
	case voiceReminderMsg:
		if msg.gen != p.rem.gen {
			return nil // a tick an earlier schedule left behind
		}
		p.rem.due = time.Time{}
		return p.refresh()
	case tea.KeyPressMsg:
		return p.onKey(msg)
	}
	return nil
}

func (p *voicesPage) onLoaded(msg voicesLoadedMsg) tea.Cmd {
	p.err = msg.err
	if msg.err != nil {
		return nil
	}
	now := p.env.now()
	cur, _ := p.selected()
	p.voices = p.voices[:0]
	for _, v := range msg.voices {
		if !v.Deleted {
			p.voices = append(p.voices, v)
		}
	}
	sortVoices(p.voices, now)
	// The cursor stays on its voice when the list changes around it.
	p.cursor = max(min(p.cursor, len(p.voices)-1), 0)
	if i := slices.IndexFunc(p.voices, func(v record.Voice) bool { return v.VoiceID == cur.VoiceID }); i >= 0 {
		p.cursor = i
	}
	first := !p.loaded
	p.loaded = true
	return p.rem.check(p.env.timers, p.voices, now, first)
}

// sortVoices puts the voices still counting down first, soonest expiry
// first, then the kept ones (newest first), then the expired ones (most
// recently expired first).
func sortVoices(vs []record.Voice, now time.Time) {
	group := func(v record.Voice) int {
		switch {
		case v.Kept:
			return 1
		case v.Expired(now):
			return 2
		}
		return 0
	}
	slices.SortStableFunc(vs, func(a, b record.Voice) int {
		ga, gb := group(a), group(b)
		switch {
		case ga != gb:
			return ga - gb
		case ga == 0:
			return a.ExpiresAt.Compare(b.ExpiresAt)
		case ga == 1:
			return b.CreatedAt.Compare(a.CreatedAt)
		}
		return b.ExpiresAt.Compare(a.ExpiresAt)
	})
}

func (p *voicesPage) expiringSoon() int {
	now, n := p.env.now(), 0
	for _, v := range p.voices {
		if v.Expiring(now, reminderThresholds[0]) {
			n++
		}
	}
	return n
}

func (p *voicesPage) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.Help().(voicesKeys)
	if cmd, ok := p.subjects.onKey(msg, k.Subjects); ok {
		return cmd
	}
	v, _ := p.selected()
	switch {
	case key.Matches(msg, k.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, k.Down):
		p.cursor = min(p.cursor+1, len(p.voices)-1)
	case key.Matches(msg, k.Top):
		p.cursor = 0
	case key.Matches(msg, k.Bottom):
		p.cursor = len(p.voices) - 1
	case key.Matches(msg, k.Play):
		return playDemo(p.env, v)
	case key.Matches(msg, k.Speak):
		return openForm(api.OpAudioTTS, map[string]any{"voice_setting_voice_id": v.VoiceID})
	case key.Matches(msg, k.LipSync):
		return openForm(api.OpLipSync, map[string]any{"voice_id": v.VoiceID})
	case key.Matches(msg, k.Subject):
		return openForm(api.OpReference2Video, map[string]any{"subjects": []any{map[string]any{"voice_id": v.VoiceID}}})
	case key.Matches(msg, k.Clone):
		return openForm(api.OpAudioClone, nil)
	case key.Matches(msg, k.Forget):
		return p.confirmForget(v)
	}
	return nil
}

func openForm(op api.Operation, values map[string]any) tea.Cmd {
	return func() tea.Msg { return newFormMsg{op: op, values: values} }
}

func (p *voicesPage) confirmForget(v record.Voice) tea.Cmd {
	ctx, store, id := p.env.ctx, p.env.store(), v.VoiceID
	body := "clapper stops listing it and reminding you of it. The service is not told: "
	switch {
	case v.Kept:
		body += "it keeps the voice, and speech synthesis can still use it by its id."
	case v.Expired(p.env.now()):
		body += "it has deleted the voice already."
	default:
		body += "it keeps the voice until " + v.ExpiresAt.Local().Format("Jan 2 15:04") + ", and for good if speech synthesis uses it by then."
	}
	d := &confirmDialog{title: "Forget voice " + api.CleanLine(id) + "?", body: body, onYes: func() tea.Msg {
		if err := store.DeleteVoice(ctx, id); err != nil {
			return statusMsg{text: api.CleanLine(err.Error()), bad: true}
		}
		return done("forgot voice "+api.CleanLine(id)+" here", changedVoices)
	}}
	return func() tea.Msg { return openDialogMsg{d} }
}

// playDemo hands the voice's preview to the desktop's player: the file the
// downloader saved of the clone's result when there is one (the URL lapses
// after 24 h), else the URL itself.
func playDemo(e *env, v record.Voice) tea.Cmd {
	ctx, store, now := e.ctx, e.store(), e.now()
	return func() tea.Msg {
		if t, err := store.TaskByID(ctx, v.CloneTaskID); err == nil {
			if dls, err := store.Downloads(ctx, v.CloneTaskID); err == nil {
				for _, d := range dls {
					if d.Status == record.DownloadDone {
						if _, err := os.Stat(d.Path); err == nil {
							return openExternal(e, d.Path)()
						}
					}
				}
			}
			if len(t.Creations) > 0 && !t.Creations[0].URLExpiresAt.IsZero() && !now.Before(t.Creations[0].URLExpiresAt) {
				return statusMsg{text: "the preview of " + api.CleanLine(v.VoiceID) + " was not saved and its URL lapsed; open the clone task (Tasks page) and press r for a fresh one", bad: true}
			}
		}
		return openExternal(e, v.DemoAudio)()
	}
}

// tickEvery is how soon a countdown on screen changes its label.
func (p *voicesPage) tickEvery() time.Duration {
	now := p.env.now()
	var every time.Duration
	for _, v := range p.voices {
		if v.Kept || v.Expired(now) {
			continue
		}
		d := v.ExpiresAt.Sub(now)
		unit := time.Minute
		switch {
		case d < time.Minute:
			unit = time.Second
		case d >= 48*time.Hour:
			unit = time.Hour
		}
		// The label changes when d crosses the next whole unit down.
		next := d%unit + time.Millisecond
		if every == 0 || next < every {
			every = next
		}
	}
	return every
}

// timeLeft reads "6d 23h", "23h59m", "41m", "30s".
func timeLeft(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd %02dh", int(d.Hours())/24, int(d.Hours())%24)
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
}

// voiceStatus is the last column: a glyph and a label, readable without
// colour, and the colour: kept, counting down, under 24 h, expired.
func (p *voicesPage) voiceStatus(v record.Voice, now time.Time) (string, func(...string) string) {
	th := p.env.theme
	switch {
	case v.Kept:
		return "✓ kept", th.Success.Render
	case v.Expired(now):
		return "✗ expired", th.Error.Render
	}
	left := v.ExpiresAt.Sub(now)
	if left < reminderThresholds[0] {
		return "! " + timeLeft(left) + " left", th.Warning.Render
	}
	return "◷ " + timeLeft(left) + " left", th.Input.Render
}

func (p *voicesPage) View() string {
	th := p.env.theme
	w := max(p.width-2, 20)
	var b strings.Builder
	b.WriteString(th.Title.Render(" Cloned voices") + "\n\n")
	switch {
	case p.err != nil:
		b.WriteString(th.Error.Render(" could not read voices: "+api.CleanLine(p.err.Error())) + "\n")
		return b.String()
	case !p.loaded:
		return b.String()
	case len(p.voices) == 0:
		return b.String() + p.emptyView(w) + "\n" + p.subjects.View(w, 3)
	}
	now := p.env.now()
	const dateW, statusW = 12, 16
	// marker, voice, two dates and the status, two spaces apart.
	voiceW := min(max(p.width-1-2-2*(dateW+2)-2-statusW, 12), 40)
	wide := p.width >= 100
	header := fmt.Sprintf("  %s  %s  %s  %s", textutil.Fit("VOICE", voiceW), textutil.Fit("CLONED", dateW), textutil.Fit("LAST USED", dateW), textutil.Fit("EXPIRY", statusW))
	if wide {
		header += "  PREVIEW"
	}
	b.WriteString(th.Dim.Render(header) + "\n")
	rows := p.visibleRows()
	if p.cursor < p.scroll {
		p.scroll = p.cursor
	}
	if p.cursor >= p.scroll+rows {
		p.scroll = p.cursor - rows + 1
	}
	for i := p.scroll; i < min(p.scroll+rows, len(p.voices)); i++ {
		v := p.voices[i]
		used := "never"
		if !v.LastUsedAt.IsZero() {
			used = v.LastUsedAt.Local().Format("Jan 2 15:04")
		}
		label, style := p.voiceStatus(v, now)
		line := fmt.Sprintf("%s  %s  %s  ", textutil.Fit(api.CleanLine(v.VoiceID), voiceW), textutil.Fit(v.CreatedAt.Local().Format("Jan 2 15:04"), dateW), textutil.Fit(used, dateW))
		status := style(textutil.Fit(label, statusW))
		if wide {
			preview := "—"
			if v.DemoAudio != "" {
				preview = "♪ p plays it"
			}
			status += "  " + th.Dim.Render(preview)
		}
		if i == p.cursor {
			b.WriteString(th.Marker.Render("▌ ") + th.Selected.Render(line) + status + "\n")
		} else {
			b.WriteString("  " + line + status + "\n")
		}
	}
	if v, ok := p.selected(); ok {
		b.WriteString("\n" + indent(wrap(p.explain(v, now), w-1), 1) + "\n")
	}
	b.WriteString("\n" + p.subjects.View(w, subjectRows))
	return b.String()
}

// subjectRows is how many stored subjects the page shows at once.
const subjectRows = 3

// visibleRows leaves room for the title, the header, the explanation of
// the selected voice (three lines at 80 columns) and the stored subjects.
func (p *voicesPage) visibleRows() int { return max(p.height-8-2-subjectRows, 1) }

// explain says what the selected voice's state means and what to do.
func (p *voicesPage) explain(v record.Voice, now time.Time) string {
	text := p.rule(v, now)
	if v.LastUsedBy != "" && !v.LastUsedAt.IsZero() {
		text += " Last used by " + api.CleanLine(v.LastUsedBy) + " on " + v.LastUsedAt.Local().Format("Jan 2 15:04") + "."
	}
	return text
}

// rule is what the service does with the voice, and the key that helps.
func (p *voicesPage) rule(v record.Voice, now time.Time) string {
	id := api.CleanLine(v.VoiceID)
	switch {
	case v.Kept:
		return id + " was used in speech synthesis within 168 hours of its cloning, so the service keeps it for good. t speaks with it."
	case v.Expired(now):
		return id + " was not used in speech synthesis within 168 hours of its cloning: the service deleted it on " +
			v.ExpiresAt.Local().Format("Jan 2 15:04") + ". Its id is free to clone again (c); d forgets it here."
	}
	return "The service deletes " + id + " on " + v.ExpiresAt.Local().Format("Jan 2 15:04") +
		" unless speech synthesis uses it by then; one use keeps it for good. t opens speech with it."
}

func (p *voicesPage) emptyView(w int) string {
	th := p.env.theme
	return indent(wrap("No cloned voice yet. A cloned voice speaks your text in speech synthesis (audio-tts) and lip-sync, "+
		"and gives a subject of a reference video its voice.", w-1), 1) + "\n\n" +
		indent(wrap(th.Key.Render("c")+" clones one from 10 seconds to 5 minutes of clear speech at a web address the service can fetch (mp3, m4a or wav): it takes no upload of a local file, so put the recording online first.", w-1), 1) + "\n\n" +
		indent(wrap("The service deletes a cloned voice unless speech synthesis uses it within 168 hours of its cloning; "+
			"one use in time keeps it for good. This page counts down, and clapper reminds you when 24 hours and 1 hour are left.", w-1), 1) + "\n\n" +
		th.Dim.Render(indent(wrap("From a script or cron: clapper voices --expiring exits 1 while a voice is about to expire.", w-1), 1)) + "\n"
}
