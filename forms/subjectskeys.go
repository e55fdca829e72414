package forms

import (
	"clapper/internal/textutil"
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

type subjectKeyMap struct {
	Up, Down, PrevSubject, NextSubject, Enter, Add, Remove, Undo, Voice, Stored, Drop key.Binding
}

var subjectKeys = subjectKeyMap{
	Up:          key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "part")),
	Down:        key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next part")),
	PrevSubject: key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "subject")),
	NextSubject: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "next subject")),
	Enter:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next part")),
	Add:         key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "add subject")),
	Remove:      key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "remove subject")),
	Undo:        key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo remove")),
	Voice:       key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "next voice")),
	Stored:      key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "next stored subject")),
	Drop:        key.NewBinding(key.WithKeys("backspace", "delete"), key.WithHelp("backspace", "remove this")),
}

func (e *subjectsEditor) Update(msg tea.Msg) (tea.Cmd, bool) {
	if text, cmd, changed, ok := e.paths.Take(msg, e.input.Value()); ok {
		if changed && e.onMedia() {
			return e.complete(text, cmd)
		}
		return nil, false
	}
	k, isKey := msg.(tea.KeyPressMsg)
	if !isKey {
		return e.typeIn(msg)
	}
	e.notice, e.warn = "", false
	onAdd := e.cur == len(e.subjects)
	switch {
	case key.Matches(k, subjectKeys.Up):
		e.move(-1)
	case key.Matches(k, subjectKeys.Down):
		e.move(1)
	case key.Matches(k, subjectKeys.PrevSubject):
		e.jump(e.cur - 1)
	case key.Matches(k, subjectKeys.NextSubject):
		e.jump(e.cur + 1)
	case key.Matches(k, subjectKeys.Add), onAdd && key.Matches(k, subjectKeys.Enter):
		return nil, e.add()
	case key.Matches(k, subjectKeys.Enter):
		e.move(1)
	case key.Matches(k, completeKey) && e.completes():
		return e.complete(e.paths.Tab(e.input.Value()))
	case key.Matches(k, subjectKeys.Remove):
		return nil, e.remove()
	case key.Matches(k, subjectKeys.Undo):
		return nil, e.restore()
	case key.Matches(k, subjectKeys.Voice) && e.onPart(partVoice):
		return nil, e.cycleVoice()
	case key.Matches(k, subjectKeys.Stored) && e.onPart(partServer) && len(e.ctx.Subjects) > 0:
		return nil, e.cycleStored()
	case !e.editable() && !onAdd && key.Matches(k, subjectKeys.Drop):
		return nil, e.drop()
	default:
		if !e.editable() && k.Text != "" {
			e.notice = "this is kept as given: backspace removes it"
			if s, _, ok := e.current(); ok && !s.isRaw {
				e.notice = "a data URI is not typed over: backspace removes it, then type a path or URL"
			}
			e.warn = true
			return nil, false
		}
		return e.typeIn(msg)
	}
	return nil, false
}

func (e *subjectsEditor) onPart(kind partKind) bool {
	_, p, ok := e.current()
	return ok && p.kind == kind
}

// typeIn hands a key or a paste to the input and stores what changed. The
// limits hold by construction: a full list has no empty slot to type in.
func (e *subjectsEditor) typeIn(msg tea.Msg) (tea.Cmd, bool) {
	if !e.editable() {
		return nil, false
	}
	var cmd tea.Cmd
	e.input, cmd = e.input.Update(msg)
	v := e.input.Value()
	if v == e.bound {
		return cmd, false
	}
	e.bound = v
	s, p, _ := e.current()
	s.setText(p, v)
	if e.onMedia() {
		cmd = tea.Batch(cmd, e.paths.Changed(v))
	}
	return cmd, true
}

// completes reports that tab is completion: a path being typed in an
// image or video part (tab then stays on it).
func (e *subjectsEditor) completes() bool {
	return e.onMedia() && e.paths.Wants(e.input.Value())
}

// complete writes what tab completed into the focused part.
func (e *subjectsEditor) complete(text string, cmd tea.Cmd) (tea.Cmd, bool) {
	if text == e.input.Value() {
		return cmd, false
	}
	e.input.SetValue(text)
	e.input.CursorEnd()
	e.bound = text
	s, p, _ := e.current()
	s.setText(p, text)
	return cmd, true
}

// canMove reports whether up or down stays inside the editor; at its edges
// the keys are the form's, to reach the field above or below.
func (e *subjectsEditor) canMove(by int) bool {
	if by < 0 {
		return e.cur > 0 || e.row > 0
	}
	return e.cur < len(e.subjects)
}

func (e *subjectsEditor) move(by int) {
	if !e.canMove(by) {
		return
	}
	if e.cur < len(e.subjects) {
		n := len(e.parts(e.subjects[e.cur]))
		if r := e.row + by; r >= 0 && r < n {
			e.row = r
			e.bind()
			return
		}
	}
	e.leave()
	e.cur += by
	e.row = 0
	if by < 0 {
		e.row = len(e.parts(e.subjects[e.cur])) - 1
	}
	e.bind()
}

func (e *subjectsEditor) jump(to int) {
	if to < 0 || to > len(e.subjects) || to == e.cur {
		return
	}
	e.leave()
	e.cur, e.row = to, 0
	e.bind()
}

// leave tidies the subject the cursor leaves.
func (e *subjectsEditor) leave() {
	if e.cur < len(e.subjects) {
		e.subjects[e.cur].compact()
	}
}

// maxSubjects is the field's bound for the chosen model, 0 for none shown.
func (e *subjectsEditor) maxSubjects() int { return e.field.MaxItems }

func (e *subjectsEditor) add() bool {
	if m := e.maxSubjects(); m > 0 && len(e.subjects) >= m {
		e.notice, e.warn = fmt.Sprintf("%s takes at most %d subjects", e.modelName(), m), true
		return false
	}
	e.leave()
	e.subjects = append(e.subjects, &subject{})
	e.cur, e.row = len(e.subjects)-1, 0
	e.bind()
	return true
}

func (e *subjectsEditor) modelName() string {
	if e.ctx.Model != "" {
		return e.ctx.Model
	}
	return "this model"
}

// remove takes the focused subject out at once and says how to bring it
// back: asking first would cost a key on every removal.
func (e *subjectsEditor) remove() bool {
	if e.cur >= len(e.subjects) {
		return false
	}
	s := e.subjects[e.cur]
	e.undo = append(e.undo, subjectUndo{s: s, at: e.cur, kind: partName})
	e.subjects = slices.Delete(e.subjects, e.cur, e.cur+1)
	e.row = 0
	e.notice = fmt.Sprintf("removed subject %d %s · ctrl+z brings it back", e.undo[len(e.undo)-1].at+1, s.title())
	e.bind()
	return true
}

// drop removes a part kept as given: a data URI, an extra key, an item
// that is no subject.
func (e *subjectsEditor) drop() bool {
	s, p, ok := e.current()
	if !ok {
		return false
	}
	switch p.kind {
	case partRaw:
		return e.remove()
	case partExtra:
		e.undo = append(e.undo, subjectUndo{s: s, kind: partExtra, key: p.key, value: s.extra[p.key]})
		delete(s.extra, p.key)
		e.notice = fmt.Sprintf("removed %s from %s · ctrl+z brings it back", p.key, s.title())
	case partImage, partVideo:
		list := &s.images
		if p.kind == partVideo {
			list = &s.videos
		}
		if p.i >= len(*list) {
			return false
		}
		e.undo = append(e.undo, subjectUndo{s: s, kind: p.kind, at: p.i, value: (*list)[p.i]})
		*list = slices.Delete(*list, p.i, p.i+1)
		e.notice = fmt.Sprintf("removed a %s from %s · ctrl+z brings it back", p.kind.noun(), s.title())
	default:
		return false
	}
	e.clampCursor()
	e.bind()
	return true
}

func (k partKind) noun() string {
	if k == partVideo {
		return "video"
	}
	return "image"
}

// restore undoes the last removal, where it still fits.
func (e *subjectsEditor) restore() bool {
	if len(e.undo) == 0 {
		return false
	}
	u := e.undo[len(e.undo)-1]
	e.undo = e.undo[:len(e.undo)-1]
	switch u.kind {
	case partName:
		if m := e.maxSubjects(); m > 0 && len(e.subjects) >= m {
			e.undo = append(e.undo, u)
			e.notice, e.warn = fmt.Sprintf("%s takes at most %d subjects: remove one first", e.modelName(), m), true
			return false
		}
		e.leave()
		at := min(u.at, len(e.subjects))
		e.subjects = slices.Insert(e.subjects, at, u.s)
		e.cur, e.row = at, 0
		e.notice = "brought back " + u.s.title()
	case partExtra:
		if u.s.extra == nil {
			u.s.extra = map[string]any{}
		}
		u.s.extra[u.key] = u.value
		e.notice = fmt.Sprintf("brought back %s of %s", u.key, u.s.title())
	case partImage, partVideo:
		list, limit := &u.s.images, subjectImages
		if u.kind == partVideo {
			list, limit = &u.s.videos, subjectVideos
		}
		if u.s.count(*list) >= limit {
			e.undo = append(e.undo, u)
			e.notice, e.warn = fmt.Sprintf("%s already has %s", u.s.title(), textutil.Plural(limit, u.kind.noun())), true
			return false
		}
		*list = slices.Insert(*list, min(u.at, len(*list)), u.value.(string))
		e.notice = fmt.Sprintf("brought back a %s of %s", u.kind.noun(), u.s.title())
	}
	e.clampCursor()
	e.bind()
	return true
}

// cycleVoice steps through the cloned voices, the system voices and then
// "none"; a voice typed by hand starts the cycle over.
func (e *subjectsEditor) cycleVoice() bool {
	voices := e.ctx.voiceChoices()
	s, _, _ := e.current()
	next := voices[0]
	if i := slices.Index(voices, s.voice); i >= 0 {
		next = ""
		if i+1 < len(voices) {
			next = voices[i+1]
		}
	}
	s.voice = next
	delete(s.extra, "voice_id")
	e.bind()
	return true
}

// cycleStored steps the server id through the library's stored subjects by
// name, then "none" (a temporary subject). A subject with no name yet
// takes the stored one's, which the prompt then calls [@name].
func (e *subjectsEditor) cycleStored() bool {
	s, _, _ := e.current()
	lib := e.ctx.Subjects
	i := slices.IndexFunc(lib, func(sb StoredSubject) bool { return sb.ID == s.server })
	switch {
	case i < 0:
		s.server = lib[0].ID
	case i+1 < len(lib):
		s.server = lib[i+1].ID
	default:
		s.server = ""
	}
	delete(s.extra, "server_id")
	if s.server != "" && (s.name == "" || slices.ContainsFunc(lib, func(sb StoredSubject) bool { return sb.Name == s.name })) {
		s.name = lib[slices.IndexFunc(lib, func(sb StoredSubject) bool { return sb.ID == s.server })].Name
		delete(s.extra, "name")
	}
	e.bind()
	return true
}

// OwnsKey claims up and down while they move inside the list, enter, and
// nothing of the form's own (tab, shift+tab, ctrl+s, esc).
func (e *subjectsEditor) OwnsKey(k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, subjectKeys.Up):
		return e.canMove(-1)
	case key.Matches(k, subjectKeys.Down):
		return e.canMove(1)
	case key.Matches(k, subjectKeys.Enter):
		return true
	case key.Matches(k, completeKey):
		return e.completes()
	}
	return false
}

// Counter is "2 of 1-7": the label beside it already says "subjects", as
// the form's other lists count ("0 of 1-7").
func (e *subjectsEditor) Counter() string {
	c := fmt.Sprint(len(e.subjects))
	switch f := e.field; {
	case f.MaxItems > 0:
		c += fmt.Sprintf(" of %d-%d", f.MinItems, f.MaxItems)
	case f.MinItems > 0:
		c += fmt.Sprintf(" of %d+", f.MinItems)
	}
	return c
}

// Keys lists only what works on the focused row.
// subjectKeysElsewhere are the subjects' keys that work only on some part
// or after some step, each saying where: the full help lists them wherever
// the cursor is, so they can be found before they are needed (the help
// line keeps to what works here).
var subjectKeysElsewhere = []key.Binding{
	key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "next voice or stored subject")),
	key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo a removal")),
	key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "in the prompt: insert [@name]")),
}

// keysElsewhere are subjectKeysElsewhere but for those working here,
// which Keys lists as they are.
func (e *subjectsEditor) keysElsewhere() []key.Binding {
	here := map[string]bool{}
	for _, b := range e.Keys() {
		here[b.Help().Key] = true
	}
	var out []key.Binding
	for _, b := range subjectKeysElsewhere {
		if !here[b.Help().Key] {
			out = append(out, b)
		}
	}
	return out
}

func (e *subjectsEditor) Keys() []key.Binding {
	ks := []key.Binding{subjectKeys.Up}
	if len(e.subjects) > 1 {
		ks = append(ks, subjectKeys.PrevSubject)
	}
	onAdd := e.cur == len(e.subjects)
	if m := e.maxSubjects(); m == 0 || len(e.subjects) < m {
		ks = append(ks, subjectKeys.Add)
	}
	if !onAdd {
		ks = append(ks, subjectKeys.Remove)
	}
	if len(e.undo) > 0 {
		ks = append(ks, subjectKeys.Undo)
	}
	if e.onPart(partServer) && len(e.ctx.Subjects) > 0 {
		ks = append(ks, subjectKeys.Stored)
	}
	if e.onPart(partVoice) {
		ks = append(ks, subjectKeys.Voice)
	}
	if e.onMedia() {
		ks = append(ks, completeKey)
	}
	if !onAdd && !e.editable() {
		ks = append(ks, subjectKeys.Drop)
	}
	return ks
}
