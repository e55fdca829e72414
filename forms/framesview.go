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

// View draws one line per key frame; focused, the focused frame opens into
// its parts, and the count, the total length and the last notice follow.
func (e *framesEditor) View(s *Styles, width int, focused bool) string {
	return e.view(s, width, focused, nil)
}

// view is View with what the form measured of each file (info), as a
// media list shows it.
func (e *framesEditor) view(s *Styles, width int, focused bool, info func(string) (string, bool)) string {
	if width <= 0 {
		return ""
	}
	var b strings.Builder
	line := func(l string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ansi.Truncate(l, width, "…"))
	}
	if len(e.frames) == 0 && !focused {
		line(s.Dim.Render("no key frames: the video moves from the start image through each in turn"))
	}
	for i, fr := range e.frames {
		open := focused && i == e.cur
		line(e.summary(s, width, i, fr, open))
		if open {
			for p := range e.parts() {
				line(e.partView(s, width, i, fr, p, p == e.part, info))
			}
		}
	}
	if focused {
		add := "  + add key frame"
		st := s.Dim
		if e.cur == len(e.frames) {
			add, st = "▸ + add key frame", s.Focused
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
	if e.notice != "" && focused {
		st := s.OK
		if e.warn {
			st = s.Warning
		}
		line("  " + st.Render(e.notice))
	}
	return b.String()
}

// limits is the length of the video the frames make (the start image is
// its first instant), with the frames whose duration is not given, and its
// price; the count is beside the field's name.
func (e *framesEditor) limits(s *Styles) string {
	sum, unset := e.total()
	out := s.Dim.Render("total ") + s.Value.Render(num(sum)+" s")
	if unset > 0 {
		verb := " default"
		if unset == 1 {
			verb = " defaults"
		}
		out += s.Dim.Render(fmt.Sprintf(" (%s%s to %d s)", textutil.Plural(unset, "frame"), verb, catalog.KeyFrameDefault))
	}
	if e.cost != "" && len(e.frames) > 0 {
		out += s.Dim.Render(" · ") + s.Value.Render(api.CleanLine(e.cost))
	}
	return out
}

// summary is a frame's compact line: its number, key image, duration and
// prompt, and a mark when the check found something wrong with it.
func (e *framesEditor) summary(st *Styles, width, i int, fr *keyFrame, open bool) string {
	mark := "  "
	if open {
		mark = st.Focused.Render("▸ ")
	}
	num := fmt.Sprintf("%d ", i+1)
	head := mark + st.Dim.Render(num)
	if len(e.problems[i]) > 0 {
		head = mark + st.Error.Render("✗"+strings.TrimSpace(num))
	}
	head = head + strings.Repeat(" ", max(5-lipgloss.Width(head), 1))
	if fr.isRaw {
		return head + st.Error.Render("✗ not a key frame: "+api.CleanLine(catalog.FormatValue(fr.raw)))
	}
	imgW := min(max(width/3, 14), 40)
	img := st.Value.Render(textutil.Fit(api.CleanLine(e.frameLabel(fr.image)), imgW))
	if strings.TrimSpace(fr.image) == "" {
		img = st.Error.Render(textutil.Fit("(no key image)", imgW))
	}
	dur := st.Default.Render(textutil.FitRight(fmt.Sprintf("%d s", catalog.KeyFrameDefault), 6))
	if d := strings.TrimSpace(fr.duration); d != "" {
		dur = st.Value.Render(textutil.FitRight(api.CleanLine(d)+" s", 6))
	}
	// The flag of what is kept as given has its room before the prompt's:
	// a long prompt cut at the line's end would take it with it.
	kept := ""
	if len(fr.extra) > 0 {
		kept = " ✗ kept: " + api.CleanLine(strings.Join(sortedKeys(fr.extra), ", "))
	}
	room := max(width-lipgloss.Width(head)-imgW-6-4-lipgloss.Width(kept), 4)
	prompt := st.Dim.Render("no prompt")
	if p := strings.TrimSpace(fr.prompt); p != "" {
		prompt = st.Value.Render(textutil.Truncate("“"+api.CleanLine(p)+"”", room))
	}
	out := head + img + "  " + dur + "  " + prompt
	if kept != "" {
		out += st.Error.Render(kept)
	}
	return out
}

const frameLabelWidth = 11

// partView is one row of the opened frame: its label, then the input on
// the focused row or the value, then what the value is or breaks.
func (e *framesEditor) partView(st *Styles, width, i int, fr *keyFrame, p framePart, on bool, info func(string) (string, bool)) string {
	mark := "     "
	label := st.Label
	if on {
		mark, label = "   "+st.Focused.Render("› "), st.Focused
	}
	if fr.isRaw {
		note := "no key frame, kept as given"
		if on {
			note = "kept as given · backspace removes it"
		}
		return mark + label.Render(textutil.Fit("✗", frameLabelWidth)) + st.Dim.Render(note)
	}
	head := mark + label.Render(textutil.Fit([...]string{"key image", "prompt", "duration"}[p], frameLabelWidth))
	room := max(min(width, partRowWidth)-lipgloss.Width(head), 4)
	text := fr.text(p)
	note := e.partNote(st, i, fr, p, info)
	var body string
	switch {
	case p == frameImage && heldMedia(text):
		body = st.Value.Render(dataURISummary(text))
		if on {
			note = st.Dim.Render("backspace removes it")
		}
	case on:
		in := [...]*lineEditor{e.image, e.prompt, e.duration}[p]
		nw := lipgloss.Width(note)
		if nw+2+8 > room {
			nw = -2
		}
		body = in.View(st, max(room-nw-2, 4), true)
		body, _, _ = strings.Cut(body, "\n")
	case strings.TrimSpace(text) == "":
		body = [...]string{st.Error.Render("required: a file path, URL or image made here"), st.Dim.Render("none"),
			st.Default.Render(fmt.Sprintf("%d s when none is given", catalog.KeyFrameDefault))}[p]
	default:
		body = st.Value.Render(api.CleanLine(text))
		if p == frameImage {
			body = st.Value.Render(api.CleanLine(e.frameLabel(text)))
		}
	}
	nw := lipgloss.Width(note)
	if note == "" || nw+2+8 > room {
		return head + ansi.Truncate(body, room, "…")
	}
	body = ansi.Truncate(body, room-nw-2, "…")
	return head + body + strings.Repeat(" ", max(room-lipgloss.Width(body)-nw, 2)) + note
}

// partNote says what a part is or what is wrong with it: the file's
// figures, the result it is, the bounds of a duration, the check's word.
func (e *framesEditor) partNote(st *Styles, i int, fr *keyFrame, p framePart, info func(string) (string, bool)) string {
	wire := [...]string{"key_image", "prompt", "duration"}[p]
	for _, m := range e.problems[i] {
		if _, after, ok := strings.Cut(m, "]."+wire); ok {
			// The row has room for the gist; the message in full is under
			// the field ("required (the image the video reaches…)").
			gist, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(after, ":"), " "+wire), " (")
			return st.Error.Render("✗" + gist)
		}
	}
	text := strings.TrimSpace(fr.text(p))
	switch p {
	case frameImage:
		if note := e.ctx.resultNote(text); note != "" {
			return st.Dim.Render(note)
		}
		if info != nil && text != "" {
			if n, bad := info(text); n != "" {
				if bad {
					return st.Error.Render(n)
				}
				return st.Dim.Render(n)
			}
		}
		if text != "" && !catalog.IsLocalPath(text) && !catalog.IsDataURI(text) {
			return st.Dim.Render("URL")
		}
	case framePrompt:
		return st.Dim.Render("optional")
	case frameDuration:
		return st.Dim.Render(fmt.Sprintf("%d-%d s", catalog.KeyFrameMinSeconds, catalog.KeyFrameMaxSeconds))
	}
	return ""
}
