package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
)

// age says how long ago t was, in the largest unit that fits in 3 cells.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 100*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d < 365*24*time.Hour:
		return fmt.Sprintf("%dmo", int(d.Hours()/24/30))
	}
	return fmt.Sprintf("%dy", int(d.Hours()/24/365))
}

// opLabels are the operations' short names for lists narrower than the
// wire names (README: Tasks page).
var opLabels = map[api.Operation]string{
	api.OpReference2Video:   "r2v",
	api.OpImg2Video:         "i2v",
	api.OpText2Video:        "t2v",
	api.OpStartEnd2Video:    "se2v",
	api.OpReference2Image:   "r2i",
	api.OpAudioClone:        "clone",
	api.OpAudioTTS:          "tts",
	api.OpTiming2Audio:      "sfx",
	api.OpLipSync:           "lip",
	api.OpTemplateStory:     "story",
	api.OpTrendingReplicate: "trend",
	api.OpMV:                "mv",
	api.OpPremiumMV:         "pmv",
	api.OpGeneralOneClick:   "scenes",
	api.OpExtend:            "ext",
	api.OpMultiframe:        "frames",
	api.OpUpscaleNew:        "up",
	api.OpText2Audio:        "t2a",
	api.OpTemplate2Video:    "tpl",
}

// opLabel is an operation's short name; one clapper does not know keeps
// its wire name.
func opLabel(op api.Operation) string {
	if l, ok := opLabels[op]; ok {
		return l
	}
	return string(op)
}

// left says how long until t: "23h", "41m", "expired".
func left(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "expired"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// inFlight reports whether a task's state can still change by itself.
func inFlight(state string) bool {
	switch state {
	case api.StateCreated, api.StateQueueing, api.StateProcessing, record.StateSubmitting:
		return true
	}
	return false
}

// unknownOutcome is the row state of a request whose answer never came.
const unknownOutcome = "unknown"

// glyph is a state's symbol: readable without colour.
func glyph(state string) string {
	switch state {
	case api.StateSuccess:
		return "✓"
	case api.StateFailed:
		return "✗"
	case record.StateRejected:
		return "⊘"
	case record.StateAbandoned:
		return "–"
	case unknownOutcome:
		return "?"
	case api.StateQueueing, api.StateCreated:
		// The clock hand at its start: a hand standing at ◷ is an
		// off-peak task's (offPeakGlyph), which a new task is not.
		return queuedFrames[0]
	}
	return "•"
}

// offPeakGlyph is an off-peak task's still clock hand while it waits for
// quiet hours.
const offPeakGlyph = "◷"

// stillGlyph is a task's symbol where nothing moves: the off-peak hand for
// a task queued for quiet hours, else its state's.
func stillGlyph(state string, offPeak bool) string {
	if offPeak && state == api.StateQueueing {
		return offPeakGlyph
	}
	return glyph(state)
}

// stateLabel is how a state reads in a list.
func stateLabel(state string) string {
	switch state {
	case record.StateSubmitting:
		return "sending"
	case unknownOutcome:
		return "unknown"
	case record.StateRejected, record.StateAbandoned:
		return state
	}
	return api.DescribeState(api.CleanLine(state))
}

// credits reads "1 credit", "12 credits".
func credits(n int64) string {
	if n == 1 {
		return "1 credit"
	}
	return fmt.Sprintf("%d credits", n)
}

// fitting remembers the lines of recent frames that fit the width: a
// spinner's turn draws again rows drawn a turn before, and measuring their
// widths cost more than the rest of the frame's View.
type fitting struct {
	width int
	fit   map[string]bool
}

// clampBlock makes text exactly h lines of at most w cells: longer lines
// are cut, missing lines added. It is the cheap frame of every page (a
// lipgloss Height/MaxWidth style re-wraps the whole text on each frame).
func (f *fitting) clampBlock(s string, w, h int) string {
	if f.width != w || len(f.fit) > 4096 {
		f.width, f.fit = w, map[string]bool{}
	}
	lines := strings.SplitN(s, "\n", h+1)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		// A cell takes a byte at least: a line no longer than w bytes fits.
		if len(l) <= w || f.fit[l] {
			continue
		}
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
			continue
		}
		f.fit[l] = true
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// flowParts joins a line's parts with sep, going on to a new line before
// a part that would pass w columns: a narrow screen shows each whole.
func flowParts(parts []string, sep string, w int) string {
	var b strings.Builder
	at := 0
	for i, p := range parts {
		if i > 0 {
			if at+ansi.StringWidth(sep)+ansi.StringWidth(p) > w {
				b.WriteString("\n")
				at = 0
			} else {
				b.WriteString(sep)
				at += ansi.StringWidth(sep)
			}
		}
		b.WriteString(p)
		at += ansi.StringWidth(p)
	}
	return b.String()
}

// wrapAtMost wraps s to w cells in at most n lines, the last ending in "…"
// when some is left out.
func wrapAtMost(s string, w, n int) []string {
	lines := strings.Split(wrap(s, w), "\n")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = textutil.Truncate(strings.TrimRight(lines[n-1], " ")+" …", w)
	}
	return lines
}
