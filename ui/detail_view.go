package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
)

// How the detail draws a task: its lines, its preview, its downloads.

func (d *detailModel) View() string {
	if d.sideBySide() {
		side := d.previewView()
		return lipgloss.JoinHorizontal(lipgloss.Top, d.vp.View(), "   ", side)
	}
	return d.vp.View()
}

func (d *detailModel) previewView() string {
	th := d.env.theme
	switch {
	case d.preview != nil && d.imageID != 0:
		return d.preview.KittyPlaceholders(d.imageID)
	case d.preview != nil:
		return d.preview.HalfBlock()
	case d.previewLoading:
		return th.Dim.Render("loading preview…")
	case d.previewNote != "":
		return th.Dim.Render(wrap(d.previewNote, previewCols))
	}
	return ""
}

func (d *detailModel) render() {
	if d.width == 0 {
		return
	}
	th := d.env.theme
	w := d.textWidth()
	var b strings.Builder
	if d.loadErr != nil {
		b.WriteString(th.Error.Render("Could not read this task from history: " + api.CleanLine(d.loadErr.Error())))
		d.vp.SetContent(b.String())
		return
	}
	t := d.task
	if t == nil {
		d.vp.SetContent(th.Dim.Render("reading…"))
		return
	}
	now := d.env.now()
	title := fmt.Sprintf("%s · %s", t.Operation, orDash(api.CleanLine(t.Model)))
	id := "no task id yet"
	if t.TaskID != "" {
		id = "task " + api.CleanLine(t.TaskID)
	}
	b.WriteString(flowParts([]string{th.Title.Render(title), th.Dim.Render(fmt.Sprintf("%s  #%d", id, t.LocalID))}, "  ", w) + "\n")
	st := stateStyle(th, t.State)(stillGlyph(t.State, t.OffPeak) + " " + stateCell(*t))
	created := th.Dim.Render("created ") + t.CreatedAt.Local().Format("Jan 2 15:04:05") + th.Dim.Render(" ("+age(now, t.CreatedAt)+" ago)")
	b.WriteString(flowParts([]string{st, credits(t.Credits), created}, th.Dim.Render("  ·  "), w) + "\n")
	if u, known := d.env.usual[d.usualKey()]; known || inFlight(t.State) {
		// While the service is out of reach nothing is known of a task in
		// flight: its clock stops when the link was lost.
		if line := timingLine(*t, d.env.health.clock(now), u, known); line != "" {
			b.WriteString(th.Dim.Render(wrap(line, w)) + "\n")
		}
	}
	if t.OffPeak {
		b.WriteString(th.Dim.Render(offPeakLine(*t)) + "\n")
	}
	if text := senderText(*t, w); text != "" {
		b.WriteString(th.Dim.Render(text) + "\n")
	}
	if len(t.Tags) > 0 {
		b.WriteString(th.Dim.Render("tags  ") + th.Key.Render(strings.Join(t.Tags, " ")) + "\n")
	}
	if t.Note != "" {
		// The note keeps its lines; each is wrapped under the first.
		var lines []string
		for _, line := range strings.Split(api.CleanText(t.Note), "\n") {
			lines = append(lines, wrap(line, w-6))
		}
		b.WriteString(th.Dim.Render("note  ") + strings.ReplaceAll(strings.Join(lines, "\n"), "\n", "\n      ") + "\n")
	}
	b.WriteString(chainLines(th, *t, w))

	if t.ErrCode != "" {
		b.WriteString("\n" + th.Section.Render("Error") + "\n")
		code, why := api.CleanLine(t.ErrCode), api.Explain(t.ErrCode, 0)
		sep := "  "
		if 2+lipgloss.Width(code)+2+lipgloss.Width(why) > w {
			sep = "\n  " // a narrow screen: the meaning under the code, not cut beside it
		}
		b.WriteString("  " + th.Error.Render(code) + sep + wrapIndent(why, w-4, 2) + "\n")
	}
	if r := t.Rejection; r != nil && t.NotSent() {
		b.WriteString("\n" + th.Section.Render("Not sent") + "\n")
		b.WriteString("  " + th.Error.Render(wrapIndent(r.Message, w-4, 2)) + "\n")
		b.WriteString(th.Dim.Render(wrapIndent("Nothing reached the service: no task was created and nothing was charged. It can be sent again as it is.", w-4, 2)) + "\n")
	} else if r != nil {
		b.WriteString("\n" + th.Section.Render("Refused") + "\n")
		// The service's message is wrapped, not cut at the edge: it names
		// every field it refused.
		reason := api.CleanLine(r.Reason)
		msg := wrapIndent(fmt.Sprintf("%s %d %s", reason, r.Status, api.CleanLine(r.Message)), w-4, 2)
		if rest, ok := strings.CutPrefix(msg, reason); ok {
			msg = th.Error.Render(reason) + rest
		}
		b.WriteString("  " + msg + "\n")
		b.WriteString("  " + wrapIndent(api.Explain(r.Reason, r.Status), w-4, 2) + "\n")
		if len(r.Fields) > 0 {
			b.WriteString("  fields: " + api.CleanLine(strings.Join(r.Fields, ", ")) + "\n")
		}
		if r.TraceID != "" {
			b.WriteString(th.Dim.Render("  trace id (for support): ") + api.CleanLine(r.TraceID) + "\n")
		}
	}

	b.WriteString("\n" + th.Section.Render("Results") + "\n")
	if len(t.Creations) == 0 {
		b.WriteString(th.Dim.Render("  "+noResults(t.State)) + "\n")
	}
	if len(t.SavedOn) > 0 && len(t.Creations) > 0 {
		// A colleague's copy is on their machine: this one fetches its own.
		line := "  saved on " + api.CleanLine(strings.Join(t.SavedOn, ", "))
		if len(d.downloads) == 0 {
			line += " (d saves it here too while its URL lasts)"
		}
		b.WriteString(th.Dim.Render(wrap(line, w)) + "\n")
	}
	for _, c := range t.Creations {
		b.WriteString(fmt.Sprintf("  %d  %s\n", c.Index+1, textutil.Fit(api.CleanLine(c.URL), w-6)))
		line := "     "
		if exp := left(now, c.URLExpiresAt); exp == "expired" {
			line += th.Dim.Render("URL expired (r re-reads it for a fresh one)")
		} else if exp != "" {
			line += th.Dim.Render("URL valid for " + exp)
		}
		b.WriteString(line + "\n")
		for _, dl := range d.downloads {
			if dl.Index == c.Index && dl.Kind == record.KindURL {
				b.WriteString("     " + d.downloadLine(dl, w-6) + "\n")
			}
		}
	}
	if isFinishedVideo(t) && len(t.Creations) > 0 {
		// What a finished video can become, where its results are read.
		b.WriteString("  " + th.Key.Render("+") + th.Dim.Render(" extend it  ") + th.Key.Render("u") + th.Dim.Render(" upscale it  ") +
			th.Key.Render("s") + th.Dim.Render(" send it onward") + "\n")
	}
	if !d.sideBySide() {
		if pv := d.previewView(); pv != "" {
			b.WriteString("\n" + pv + "\n")
		}
	}

	b.WriteString("\n" + th.Section.Render("Timeline") + "\n")
	for _, ev := range t.Events {
		b.WriteString("  " + th.Dim.Render(ev.At.Local().Format("Jan 2 15:04:05")) + "  " + stateStyle(th, ev.To)(stateLabel(ev.To)) + "\n")
	}
	if len(t.Events) == 0 {
		b.WriteString(th.Dim.Render("  no state change recorded yet") + "\n")
	}

	b.WriteString("\n" + th.Section.Render("Request") + "\n")
	b.WriteString(fields(th, t.Request, w))
	for _, m := range t.Media {
		b.WriteString(th.Dim.Render(fmt.Sprintf("  %s was a local %s file (%s)", api.CleanLine(m.Path), api.CleanLine(m.ContentType), api.ByteSize(m.Bytes))) + "\n")
	}
	if len(t.Echo) > 0 {
		b.WriteString("\n" + th.Section.Render("Creation echo") + "\n")
		b.WriteString(fields(th, t.Echo, w))
	}
	d.vp.SetContent(b.String())
}

func (d *detailModel) downloadLine(dl record.Download, w int) string {
	th := d.env.theme
	switch dl.Status {
	case record.DownloadDone:
		return th.Success.Render("saved ") + textutil.Fit(api.CleanLine(dl.Path), w-20) + th.Dim.Render(" ("+api.ByteSize(dl.Bytes)+")")
	case record.DownloadQueued:
		return th.Dim.Render("download queued")
	case record.DownloadRunning:
		pct := 0.0
		if dl.Total > 0 {
			pct = float64(dl.Bytes) / float64(dl.Total)
		}
		return d.bar.ViewAs(pct) + th.Dim.Render(fmt.Sprintf(" %s of %s", api.ByteSize(dl.Bytes), api.ByteSize(dl.Total)))
	}
	// Wrapped under the line's start: the reason's end names the host.
	return th.Error.Render(wrapIndent(fmt.Sprintf("download %s: %s", string(dl.Status), dl.Error), w, 5))
}

// fields lists a JSON object's keys and values, one per line, sorted.
func fields(th *Theme, raw []byte, w int) string {
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "  " + textutil.Fit(api.CleanLine(string(raw)), w-2) + "\n"
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	kw := 0
	for _, k := range keys {
		kw = max(kw, min(len(k), 22))
	}
	var b strings.Builder
	for _, k := range keys {
		v := obj[k]
		var s string
		if str, ok := v.(string); ok {
			s = str
		} else {
			enc, _ := json.Marshal(v)
			s = string(enc)
		}
		b.WriteString("  " + th.Dim.Render(textutil.Fit(api.CleanLine(k), kw)) + "  " + textutil.Fit(api.CleanLine(s), max(w-kw-4, 8)) + "\n")
	}
	return b.String()
}

func wrapIndent(s string, w, n int) string {
	return strings.ReplaceAll(wrap(api.CleanLine(s), w), "\n", "\n"+strings.Repeat(" ", n))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// chainLines show where a task came from and where its result went:
// "from: reference2image ✓ #12 (the first frame)".
func chainLines(th *Theme, t record.Task, w int) string {
	var b strings.Builder
	for i, l := range t.From {
		hint := "  (p opens it)"
		if len(t.From) > 1 {
			hint = "  (p asks which)"
		}
		if i > 0 {
			hint = ""
		}
		b.WriteString(th.Dim.Render("from: ") + textutil.Truncate(linkText(l, t.Operation, l.Operation), w-20) + th.Dim.Render(hint) + "\n")
	}
	if len(t.Onward) > 0 {
		texts := make([]string, len(t.Onward))
		for i, l := range t.Onward {
			texts[i] = linkText(l, l.Operation, t.Operation)
		}
		b.WriteString(th.Dim.Render("sent onward to: ") + strings.TrimRight(wrapIndent(strings.Join(texts, ", "), w-30, 16), " ") + th.Dim.Render("  (> opens it)") + "\n")
	}
	return b.String()
}

// linkText names the other task of a link and the child's field the
// parent's result filled.
func linkText(l record.Link, child, parent api.Operation) string {
	return fmt.Sprintf("%s %s #%d (%s)", l.Operation, glyph(l.State), l.LocalID, studio.PlaceOf(l, child, parent))
}
