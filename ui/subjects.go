package ui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/forms"
	"clapper/internal/textutil"
	"clapper/record"
)

// subjectsPanel is the stored-subject library under the voices: the
// subjects this backend made or read, created from images and an optional
// voice, edited, and read again from the service. The reference2video
// form picks them by name (its server id part).
type subjectsPanel struct {
	env    *env
	list   []record.Subject
	cursor int
	err    error
}

type subjectsKeys struct{ Prev, Next, New, Edit, Sync key.Binding }

func newSubjectsKeys() subjectsKeys {
	return subjectsKeys{
		Prev: key.NewBinding(key.WithKeys("["), key.WithHelp("[/]", "subject")),
		Next: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next subject")),
		New:  key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "new subject")),
		Edit: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit subject")),
		Sync: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "read subjects from the service")),
	}
}

type subjectsLoadedMsg struct {
	list []record.Subject
	err  error
}

func (sp *subjectsPanel) load() tea.Cmd {
	ctx, store := sp.env.ctx, sp.env.store()
	return func() tea.Msg {
		list, err := store.Subjects(ctx)
		return subjectsLoadedMsg{list, err}
	}
}

func (sp *subjectsPanel) onLoaded(msg subjectsLoadedMsg) {
	sp.list, sp.err = msg.list, msg.err
	sp.cursor = max(min(sp.cursor, len(sp.list)-1), 0)
}

func (sp *subjectsPanel) selected() (record.Subject, bool) {
	if sp.cursor < len(sp.list) {
		return sp.list[sp.cursor], true
	}
	return record.Subject{}, false
}

// enable turns off what does not apply.
func (sp *subjectsPanel) enable(k *subjectsKeys) {
	k.Prev.SetEnabled(len(sp.list) > 1)
	k.Next.SetEnabled(len(sp.list) > 1)
	k.Edit.SetEnabled(len(sp.list) > 0)
}

func (sp *subjectsPanel) onKey(msg tea.KeyPressMsg, k subjectsKeys) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, k.Prev):
		sp.cursor = max(sp.cursor-1, 0)
	case key.Matches(msg, k.Next):
		sp.cursor = min(sp.cursor+1, len(sp.list)-1)
	case key.Matches(msg, k.New):
		return sp.ask(&subjectDraft{}), true
	case key.Matches(msg, k.Edit):
		sb, _ := sp.selected()
		return sp.ask(&subjectDraft{id: sb.ID, name: sb.Name, images: strings.Join(sb.Images, ", "), voice: sb.VoiceID, style: sb.Style}), true
	case key.Matches(msg, k.Sync):
		ctx, s := sp.env.ctx, sp.env.studio
		return func() tea.Msg {
			list, err := s.SyncSubjects(ctx)
			if err != nil {
				return statusMsg{text: "subjects not read: " + api.CleanLine(err.Error()), bad: true}
			}
			return done(fmt.Sprintf("%d stored subjects in the library", len(list)), changedVoices)
		}, true
	default:
		return nil, false
	}
	return nil, true
}

// subjectDraft is a subject being created (id "") or edited, filled one
// dialog at a time: name, images, voice, then style when editing. A save
// the service refuses opens the step it names again, the draft whole.
type subjectDraft struct {
	id, name, images, voice, style string
	step                           int
	problem                        string
}

// subjectNotSavedMsg is a draft the service refused, and why.
type subjectNotSavedMsg struct {
	d   *subjectDraft
	err string
}

func (sp *subjectsPanel) ask(d *subjectDraft) tea.Cmd {
	th := sp.env.theme
	verb := "New subject"
	if d.id != "" {
		verb = "Edit subject " + api.CleanLine(d.id)
	}
	type step struct {
		title, hint, placeholder string
		value                    *string
		check                    func(string) error
		// verify reads what was typed (the files) before the next step.
		verify func(string) error
	}
	steps := []step{
		{"name", "What the prompt calls it as [@name]; at most 64 characters.", "mia", &d.name, func(v string) error {
			if v == "" {
				return errors.New("a subject needs a name")
			}
			if len([]rune(v)) > 64 {
				return errors.New("at most 64 characters")
			}
			return nil
		}, nil},
		{"images", "1 to 3 images, comma-separated: local files (tab completes), http(s) URLs or ssupload: URIs.", "mia.png, mia-side.jpg", &d.images, func(v string) error {
			n := len(splitList(v))
			if n < 1 || n > 3 {
				return fmt.Errorf("give 1 to 3 images, got %d", n)
			}
			return nil
		}, readSubjectImages},
		{"voice", fmt.Sprintf("Optional: a cloned voice id or one of the %d system voices (%s, ...); empty for none.", len(catalog.SystemVoices), catalog.SystemVoices[0].ID), "", &d.voice, nil, nil},
	}
	if d.id != "" {
		steps = append(steps, step{"style", "Optional: at most 100 characters.", "", &d.style, nil, nil})
	}
	if d.step >= len(steps) {
		return sp.save(d)
	}
	st := steps[d.step]
	dlg := newInputDialog(th, fmt.Sprintf("%s · %s (%d of %d)", verb, st.title, d.step+1, len(steps)), st.hint, st.placeholder, st.check,
		func(v string) tea.Cmd {
			*st.value = v
			d.step++
			return sp.ask(d)
		})
	dlg.input.SetValue(*st.value)
	dlg.input.CursorEnd()
	dlg.problem, d.problem = d.problem, ""
	dlg.verify = st.verify
	if st.title == "images" {
		dlg.paths = forms.NewPathCompleter("", catalog.Field{Media: catalog.MediaImage})
		dlg.paths.List = true
	}
	return func() tea.Msg { return openDialogMsg{dlg} }
}

// readSubjectImages reads each local image as the save will, so that a
// missing or wrong file is named at the images step, not after the last.
func readSubjectImages(v string) error {
	for _, p := range splitList(v) {
		if !catalog.IsLocalPath(p) {
			continue
		}
		if _, err := catalog.FileToDataURI(p, catalog.MediaImage); err != nil {
			return errors.New(api.CleanLine(err.Error()))
		}
	}
	return nil
}

// onNotSaved opens again the step the service's refusal names (the last
// one when it names none), with everything typed and the reason.
func (sp *subjectsPanel) onNotSaved(msg subjectNotSavedMsg) tea.Cmd {
	d := msg.d
	d.problem = "not saved: " + msg.err
	d.step = 0
	switch low := strings.ToLower(msg.err); {
	case strings.Contains(low, "style") && d.id != "":
		d.step = 3
	case strings.Contains(low, "voice"):
		d.step = 2
	case strings.Contains(low, "image"):
		d.step = 1
	case !strings.Contains(low, "name"):
		d.step = 2
		if d.id != "" {
			d.step = 3
		}
	}
	return sp.ask(d)
}

// save sends the draft: local files become data URIs, the service checks
// the rest.
func (sp *subjectsPanel) save(d *subjectDraft) tea.Cmd {
	ctx, s := sp.env.ctx, sp.env.studio
	return func() tea.Msg {
		var images []any
		for _, v := range splitList(d.images) {
			if catalog.IsLocalPath(v) {
				uri, err := catalog.FileToDataURI(v, catalog.MediaImage)
				if err != nil {
					return subjectNotSavedMsg{d, api.CleanLine(err.Error())}
				}
				v = uri
			}
			images = append(images, v)
		}
		body := map[string]any{"name": d.name, "images": images, "voice_id": d.voice}
		var sb *record.Subject
		var err error
		if d.id == "" {
			if d.voice == "" {
				delete(body, "voice_id")
			}
			sb, err = s.CreateSubject(ctx, body)
		} else {
			body["style"] = d.style
			sb, err = s.UpdateSubject(ctx, d.id, body)
		}
		if err != nil {
			return subjectNotSavedMsg{d, api.CleanLine(err.Error())}
		}
		return done("subject "+api.CleanLine(sb.Name)+" stored as "+api.CleanLine(sb.ID), changedVoices)
	}
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// View lists the subjects in at most rows lines under a title.
func (sp *subjectsPanel) View(w, rows int) string {
	th := sp.env.theme
	var b strings.Builder
	b.WriteString(th.Title.Render(fmt.Sprintf(" Stored subjects (%d)", len(sp.list))) + "\n")
	switch {
	case sp.err != nil:
		return b.String() + th.Error.Render(" could not read subjects: "+api.CleanLine(sp.err.Error())) + "\n"
	case len(sp.list) == 0:
		return b.String() + th.Dim.Render(textutil.Truncate(" none yet: s creates one (images, a voice) · S reads the service's subjects", w)) + "\n"
	}
	start := max(min(sp.cursor-rows+1, len(sp.list)-rows), 0)
	for i := start; i < min(start+max(rows, 1), len(sp.list)); i++ {
		sb := sp.list[i]
		voice := sb.VoiceID
		switch {
		case voice == "":
			voice = "no voice"
		case catalog.IsSystemVoice(voice):
			voice += " (system voice)"
		}
		line := textutil.Truncate(fmt.Sprintf("%s  %s  %s  %s", api.CleanLine(sb.Name), th.Dim.Render(api.CleanLine(sb.ID)),
			textutil.Plural(len(sb.Images), "image"), api.CleanLine(voice)), w-2)
		if i == sp.cursor {
			// Not the voices' ▌: one bar on the page marks what ↑/↓ and
			// the voice keys act on; [/] and e act on this one.
			b.WriteString(th.Key.Render("› ") + line + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}
