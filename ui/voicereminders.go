package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
)

// reminderThresholds are the time left at which a voice still counting
// down is worth a notice, widest first.
var reminderThresholds = []time.Duration{24 * time.Hour, time.Hour}

// reminderCap bounds one reminder timer: a timer's clock stands still
// while the computer sleeps, so a timer set for a day would fire as late as
// the machine slept. Waking once an hour to re-read the voices costs no
// redraw when nothing changed.
const reminderCap = time.Hour

// reminders tells the user, in the status line, when a cloned voice gets
// close to its deletion: once at start (one summary), then once per voice
// per threshold as it crosses 24 h and 1 h left. Between crossings nothing
// runs but a single timer set for the next one.
type reminders struct {
	told map[reminderKey]bool
	gen  int       // of the timer that counts; older ones are ignored
	due  time.Time // when that timer fires; zero when none is set
}

// reminderKey names one crossing. The creation time tells a voice from a
// later clone of the same id.
type reminderKey struct {
	voice     string
	created   time.Time
	threshold time.Duration
}

// voiceReminderMsg is the reminder timer firing.
type voiceReminderMsg struct{ gen int }

func newReminders() reminders { return reminders{told: map[reminderKey]bool{}} }

// check notes the crossings vs (the page's voices: none forgotten) have
// made by now and returns the notice they are worth and the timer for the
// next crossing. At start (first) every voice within 24 h makes one
// summary notice.
func (r *reminders) check(t timers, vs []record.Voice, now time.Time, first bool) tea.Cmd {
	var (
		crossed = make([][]record.Voice, len(reminderThresholds))
		soon    []record.Voice
	)
	for _, v := range vs {
		if v.Kept || v.Expired(now) {
			continue
		}
		left := v.ExpiresAt.Sub(now)
		tightest := -1
		for i, th := range reminderThresholds {
			k := reminderKey{v.VoiceID, v.CreatedAt, th}
			if left <= th && !r.told[k] {
				r.told[k] = true
				tightest = i
			}
		}
		if left <= reminderThresholds[0] {
			soon = append(soon, v)
		}
		if tightest >= 0 {
			crossed[tightest] = append(crossed[tightest], v)
		}
	}
	var cmds []tea.Cmd
	text := ""
	if first {
		text = startNotice(soon, now)
	} else {
		var parts []string
		for i := len(crossed) - 1; i >= 0; i-- {
			if len(crossed[i]) > 0 {
				parts = append(parts, crossingNotice(crossed[i], reminderThresholds[i], now))
			}
		}
		text = strings.Join(parts, "; ")
	}
	if text != "" {
		cmds = append(cmds, func() tea.Msg { return statusMsg{text: text, bad: true} })
	}
	return tea.Batch(append(cmds, r.schedule(t, vs, now))...)
}

// schedule sets the timer for the next crossing (a threshold or an expiry,
// which changes the badge), unless one already fires by then.
func (r *reminders) schedule(t timers, vs []record.Voice, now time.Time) tea.Cmd {
	var next time.Time
	for _, v := range vs {
		if v.Kept || v.Expired(now) {
			continue
		}
		for _, th := range append(reminderThresholds, 0) {
			if at := v.ExpiresAt.Add(-th); at.After(now) && (next.IsZero() || at.Before(next)) {
				next = at
			}
		}
	}
	if next.IsZero() {
		return nil
	}
	d := min(next.Sub(now), reminderCap)
	if !r.due.IsZero() && !r.due.After(now.Add(d)) {
		return nil // the timer already set fires first
	}
	r.gen++
	r.due = now.Add(d)
	gen := r.gen
	return t.after(d, voiceReminderMsg{gen})
}

// startNotice sums up, at start, the voices within 24 h of deletion.
func startNotice(soon []record.Voice, now time.Time) string {
	switch len(soon) {
	case 0:
		return ""
	case 1:
		return voiceNotice(soon[0], now)
	}
	first := soonest(soon)
	return fmt.Sprintf("%d voices expire within 24h unless used in speech synthesis, %s in %s (4 Voices)",
		len(soon), api.CleanLine(first.VoiceID), noticeLeft(first, now))
}

// crossingNotice tells that vs just came within threshold of deletion.
func crossingNotice(vs []record.Voice, threshold time.Duration, now time.Time) string {
	if len(vs) == 1 {
		return voiceNotice(vs[0], now)
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = api.CleanLine(v.VoiceID)
	}
	return fmt.Sprintf("%d voices expire within %s unless used in speech synthesis: %s", len(vs), timeLeft(threshold), strings.Join(ids, ", "))
}

func voiceNotice(v record.Voice, now time.Time) string {
	return fmt.Sprintf("%s expires in %s unless used in speech synthesis (4 Voices)", api.CleanLine(v.VoiceID), noticeLeft(v, now))
}

// noticeLeft is the time left to the minute: a timer firing a moment after
// the 1 h mark still reads 1h00m.
func noticeLeft(v record.Voice, now time.Time) string {
	return timeLeft(v.ExpiresAt.Sub(now).Round(time.Minute))
}

func soonest(vs []record.Voice) record.Voice {
	s := vs[0]
	for _, v := range vs[1:] {
		if v.ExpiresAt.Before(s.ExpiresAt) {
			s = v
		}
	}
	return s
}
