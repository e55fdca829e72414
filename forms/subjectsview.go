package forms

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/internal/textutil"
)

// title names a subject in messages.
func (s *subject) title() string {
	if s.isRaw || s.name == "" {
		return "(no name)"
	}
	return "“" + api.CleanLine(s.name) + "”"
}

// View draws one line per subject; focused, the focused subject opens into
// its parts, and the limits and the last notice follow.
func (e *subjectsEditor) View(s *Styles, width int, focused bool) string {
	if width <= 0 {
		return ""
	}
	dups := e.duplicates()
	var b strings.Builder
	line := func(l string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ansi.Truncate(l, width, "…"))
	}
	if len(e.subjects) == 0 && !focused {
		line(s.Dim.Render("no subjects"))
	}
	for i, sub := range e.subjects {
		open := focused && i == e.cur
		line(e.summary(s, width, i, sub, open, dups))
		if open {
			for r, p := range e.parts(sub) {
				line(e.partView(s, width, sub, p, r == e.row, dups))
			}
		}
	}
	if focused {
		add := "  + add subject"
		st := s.Dim
		if e.cur == len(e.subjects) {
			add, st = "▸ + add subject", s.Focused
		}
		left := st.Render(add) + " " + s.Key.Render("ctrl+n")
		right := e.limits(s)
		if gap := width - lipgloss.Width(left) - lipgloss.Width(right); gap >= 2 {
			line(left + strings.Repeat(" ", gap) + right)
		} else {
			line(left)
			line("  " + right)
		}
	}
	if hint := e.paths.Hint(width); hint != "" && focused && e.onMedia() {
		line(s.Dim.Render(hint))
	}
	if e.notice != "" && focused {
		st := s.OK
		if e.warn {
			st = s.Warning
		}
		line("  " + st.Render(e.notice))
	}
	return b.String()
}

// limits are the live counts against the model's bounds: all subjects, and
// svcq2-pro's split between image or text subjects and video subjects.
func (e *subjectsEditor) limits(s *Styles) string {
	count := func(label string, n, max int) string {
		st := s.OK
		if max > 0 && n > max {
			st = s.Error
		}
		if max == 0 {
			return s.Dim.Render(label+" ") + st.Render(fmt.Sprint(n))
		}
		return s.Dim.Render(label+" ") + st.Render(fmt.Sprintf("%d of %d", n, max))
	}
	out := count("subjects", len(e.subjects), e.maxSubjects())
	if e.pro() {
		var plain, video int
		for _, sub := range e.subjects {
			if !sub.isRaw && sub.count(sub.videos) > 0 {
				video++
			} else {
				plain++
			}
		}
		out += s.Dim.Render(" · ") + count("image/text", plain, proPlainSubject) +
			s.Dim.Render(" · ") + count("video", video, proVideoSubject)
	}
	return out
}

// duplicates are the names given to more than one subject: [@name] would
// be ambiguous, and the catalog refuses them.
func (e *subjectsEditor) duplicates() map[string]bool {
	var seen, dup map[string]bool
	for _, s := range e.subjects {
		if s.isRaw || s.name == "" {
			continue
		}
		if seen[s.name] {
			if dup == nil {
				dup = map[string]bool{}
			}
			dup[s.name] = true
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[s.name] = true
	}
	return dup
}

// summary is a subject's compact line: name, images n/3, video, voice,
// server id, and a flag for what is kept as given.
func (e *subjectsEditor) summary(st *Styles, width, i int, s *subject, open bool, dups map[string]bool) string {
	mark := "  "
	if open {
		mark = st.Focused.Render("▸ ")
	}
	head := mark + st.Dim.Render(fmt.Sprintf("%d ", i+1))
	if s.isRaw {
		return head + st.Error.Render("✗ not a subject: "+api.CleanLine(catalog.FormatValue(s.raw)))
	}
	nameW := min(max(width/6, 8), 20)
	name := st.Value.Render(textutil.Fit(api.CleanLine(s.name), nameW))
	switch {
	case s.name == "":
		name = st.Error.Render(textutil.Fit("(no name)", nameW))
	case dups[s.name]:
		name = st.Error.Render(textutil.Fit(api.CleanLine(s.name)+" (twice)", nameW))
	}
	sep := st.Dim.Render(" · ")
	images := st.Dim.Render(" images ") + e.countView(st, s.count(s.images), subjectImages)
	var video string
	if e.pro() || len(s.videos) > 0 {
		video = sep + st.Dim.Render("video ") + e.countView(st, s.count(s.videos), subjectVideos)
		if !e.pro() {
			video += st.Warning.Render(" (" + proModel + " only)")
		}
	}
	fixed := lipgloss.Width(head) + nameW + lipgloss.Width(images) + lipgloss.Width(video) +
		2*lipgloss.Width(sep) + len("voice ") + len("server ")
	room := max(width-fixed, 8)
	voiceW := room / 2
	out := head + name + images + video +
		sep + st.Dim.Render("voice ") + e.optional(st, s.voice, voiceW) +
		sep + st.Dim.Render("server ") + e.optional(st, s.server, room-voiceW)
	if len(s.extra) > 0 {
		out += st.Error.Render(" ✗ kept: " + api.CleanLine(strings.Join(sortedKeys(s.extra), ", ")))
	}
	return out
}

func (e *subjectsEditor) countView(st *Styles, n, max int) string {
	c := st.Value
	if n > max {
		c = st.Error
	}
	return c.Render(fmt.Sprintf("%d/%d", n, max))
}

func (e *subjectsEditor) optional(st *Styles, v string, w int) string {
	if v == "" {
		return st.Dim.Render("–")
	}
	return st.Value.Render(ansi.Truncate(api.CleanLine(v), max(w, 1), "…"))
}

const (
	partLabelWidth = 10
	partRowWidth   = 100
)

// partView is one row of the opened subject: its label, then the input on
// the focused row or the value, then what the value is.
func (e *subjectsEditor) partView(st *Styles, width int, s *subject, p part, on bool, dups map[string]bool) string {
	mark := "    "
	label := st.Label
	if on {
		mark, label = "  "+st.Focused.Render("› "), st.Focused
	}
	lab := p.label()
	if p.kind == partExtra {
		lab = api.CleanLine(p.key)
	}
	head := mark + label.Render(textutil.Fit(lab, partLabelWidth))
	// A note stays near its value on a wide screen.
	room := max(min(width, partRowWidth)-lipgloss.Width(head), 4)
	text, isText := s.text(p)
	var body, note string
	switch {
	case p.kind == partRaw:
		body = st.Error.Render(api.CleanLine(catalog.FormatValue(s.raw)))
		note = st.Dim.Render(keptNote("no subject, kept as given", on))
	case p.kind == partExtra:
		body = st.Error.Render(api.CleanLine(catalog.FormatValue(s.extra[p.key])))
		note = st.Dim.Render(keptNote(extraNote(p.key), on))
	case isText && heldMedia(text):
		body = st.Value.Render(dataURISummary(text))
		note = e.partNote(st, s, p, text, dups)
		if on {
			note = st.Dim.Render("backspace removes it")
		}
	case on:
		note = e.partNote(st, s, p, text, dups)
		in := e.input
		in.SetStyles(inputStyles(st))
		in.SetWidth(max(room-lipgloss.Width(note)-2, 4))
		in.Placeholder = e.placeholder(p)
		body = in.View()
	case text == "":
		body = st.Dim.Render(e.placeholder(p))
	default:
		body = st.Value.Render(api.CleanLine(text))
		note = e.partNote(st, s, p, text, dups)
	}
	nw := lipgloss.Width(note)
	if note == "" || nw+2+8 > room {
		return head + ansi.Truncate(body, room, "…")
	}
	body = ansi.Truncate(body, room-nw-2, "…")
	return head + body + strings.Repeat(" ", room-lipgloss.Width(body)-nw) + note
}

func extraNote(key string) string {
	switch key {
	case "name", "images", "videos", "voice_id", "server_id":
		return "not text, kept as given"
	}
	return "no subject field, kept as given"
}

// keptNote says why a part is shown but not edited, and on its row how to
// drop it.
func keptNote(why string, on bool) string {
	if on {
		return "kept as given · backspace removes it"
	}
	return why
}

// partNote says what a value is or breaks: the [@name] the prompt uses, a
// duplicate, the cloned voice picked, the kind of media.
func (e *subjectsEditor) partNote(st *Styles, s *subject, p part, text string, dups map[string]bool) string {
	switch p.kind {
	case partName:
		switch {
		case text == "":
			return st.Error.Render("required")
		case dups[text]:
			return st.Error.Render("used twice")
		}
		return st.Dim.Render("[@" + api.CleanLine(text) + "]")
	case partVoice:
		if note := e.ctx.voiceNote(text); note != "" {
			return st.Dim.Render(note)
		}
		if text != "" {
			return st.Dim.Render("a service voice")
		}
	case partServer:
		if note := e.ctx.storedNote(text); note != "" {
			return st.Dim.Render(note)
		}
		if text != "" && len(e.ctx.Subjects) > 0 {
			return st.Warning.Render("not in your library: checked with the service when sent")
		}
	case partImage, partVideo:
		if p.kind == partImage && p.i >= subjectImages {
			return st.Error.Render(fmt.Sprintf("a subject takes %d images", subjectImages))
		}
		if p.kind == partVideo && !e.pro() {
			return st.Warning.Render(proModel + " only")
		}
		if text == "" {
			return ""
		}
		if catalog.IsLocalPath(text) {
			return st.Dim.Render("file")
		}
		return st.Dim.Render("URL")
	}
	return ""
}

func (p part) label() string {
	switch p.kind {
	case partName:
		return "name"
	case partImage:
		return fmt.Sprintf("image %d", p.i+1)
	case partVideo:
		return "video"
	case partVoice:
		return "voice"
	case partServer:
		return "server id"
	}
	return "✗"
}

func (e *subjectsEditor) placeholder(p part) string {
	switch p.kind {
	case partName:
		return "the prompt calls it [@name]"
	case partImage:
		return "+ file path, http(s) URL or data URI"
	case partVideo:
		if !e.pro() {
			return proModel + " only"
		}
		return "+ a clip of 5 s: path, URL or data URI"
	case partVoice:
		return "none · ctrl+l picks a cloned or system voice, or type one"
	case partServer:
		if len(e.ctx.Subjects) > 0 {
			return "none: a temporary subject · ctrl+l picks a stored one"
		}
		return "none: a temporary subject"
	}
	return ""
}
