// What a set run tells while it runs and when it ends: its progress, and
// the summary each front end prints or shows (one line a request).

package studio

import (
	"clapper/api"
	"context"
)

// progress counts the lines by where they stand.
func (r *SetRun) progress() SetProgress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := SetProgress{Total: len(r.reqs), AtService: len(r.inflight), Waiting: len(r.queue)}
	for _, st := range r.ended {
		switch st {
		case api.StateSuccess:
			p.Done++
		case stateUnknown:
			p.Unknown++
		default:
			p.Failed++
		}
	}
	return p
}

// SetSummary is what a run ends with.
type SetSummary struct {
	Kind string `json:"kind"`
	// SetID is the set in history (the contact sheet's, get --lineage's).
	SetID   int64         `json:"set_id"`
	Done    int           `json:"done"`
	Failed  int           `json:"failed"`
	Unknown int           `json:"unknown"`
	Waiting int           `json:"waiting"`
	Credits int64         `json:"credits"`
	Lines   []SummaryLine `json:"lines"`
}

// SummaryLine is one line of a set in its summary.
type SummaryLine struct {
	Line   int    `json:"line"`
	Label  string `json:"label,omitempty"`
	TaskID string `json:"task_id,omitempty"`
	State  string `json:"state"`
}

// Summary counts the lines and their credits as history holds them.
func (r *SetRun) Summary(ctx context.Context) *SetSummary {
	kind := r.Noun
	ctx = context.WithoutCancel(ctx)
	p := r.progress()
	sum := &SetSummary{Kind: kind, SetID: r.SetID, Done: p.Done, Failed: p.Failed, Unknown: p.Unknown, Waiting: p.Waiting}
	members, err := r.s.store.SetMembers(ctx, r.SetID)
	if err != nil {
		r.say("the %s's lines could not be read back for the summary: %v", kind, err)
	}
	for _, m := range members {
		line := SummaryLine{Line: m.Line, Label: m.Label, State: "waiting"}
		if m.LocalID != 0 {
			if t, err := r.s.store.Task(ctx, m.LocalID); err == nil {
				sum.Credits += t.Credits
				line.TaskID, line.State = t.TaskID, t.State
			}
		}
		sum.Lines = append(sum.Lines, line)
	}
	return sum
}
