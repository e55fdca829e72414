package ui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
)

// The detail of a task compares its time with the usual time of its
// operation and model: the median from request to success of the latest
// successful tasks in history, read in a command once and kept by the root
// until another task succeeds.

type usualKey struct {
	op    api.Operation
	model string
}

// usualLoadedMsg carries one usual time read from history.
type usualLoadedMsg struct {
	key   usualKey
	usual record.Usual
	err   error
}

func loadUsual(e *env, k usualKey) tea.Cmd {
	ctx, store := e.ctx, e.store()
	return func() tea.Msg {
		u, err := store.UsualDuration(ctx, k.op, k.model)
		return usualLoadedMsg{key: k, usual: u, err: err}
	}
}

// timingLine says how long a task has run or took against the usual time,
// and for one in flight about how long is left. Empty for a task that did
// not succeed and is not in flight: no time of it means anything.
func timingLine(t record.Task, now time.Time, u record.Usual, known bool) string {
	usual := ""
	switch {
	case !known || u.Samples == 0:
	case u.Samples == 1:
		usual = "usually " + span(u.Median) + " (1 task)"
	default:
		usual = fmt.Sprintf("usually %s (median of %d tasks)", span(u.Median), u.Samples)
	}
	switch {
	case inFlight(t.State):
		elapsed := now.Sub(t.CreatedAt)
		s := "running for " + span(elapsed)
		switch {
		case !known:
		case usual == "":
			s += " · no finished task of this operation and model to compare with yet"
		case elapsed < u.Median:
			s += " · " + usual + " · about " + span(u.Median-elapsed) + " left"
		default:
			s += " · " + usual + " · longer than usual"
		}
		return s
	case t.State == api.StateSuccess:
		for _, ev := range t.Events {
			if ev.To == api.StateSuccess {
				s := "took " + span(ev.At.Sub(t.CreatedAt))
				// The one success of its kind is this task: nothing to
				// compare with.
				if u.Samples > 1 {
					s += " · " + usual
				}
				return s
			}
		}
	}
	return ""
}

// span is a duration in at most two units: 45s, 3m12s, 1h04m.
func span(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
