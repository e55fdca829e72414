package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/record"
)

// Requests of unknown outcome on the Tasks page: those whose answer never
// came, pinned on top, and the keys that resolve them (a attaches the task
// id found in the service's list, x abandons).

// unknown is the requests of unknown outcome now, oldest first.
func (p *tasksPage) unknown() []record.Task {
	now := p.env.now()
	var out []record.Task
	for _, t := range p.intents {
		if displayState(t, now) == unknownOutcome {
			out = append(out, t)
		}
	}
	return out
}

// pinnedRow is the request under the cursor in the pinned list.
func (p *tasksPage) pinnedRow() (record.Task, bool) {
	u := p.unknown()
	if p.pinned < 0 || p.pinned >= len(u) {
		return record.Task{}, false
	}
	return u[p.pinned], true
}

// unknownRow is the request of unknown outcome under the cursor: a pinned
// row, or its copy in the list below (where the cursor starts).
func (p *tasksPage) unknownRow() (record.Task, bool) {
	if t, ok := p.pinnedRow(); ok {
		return t, true
	}
	row, ok := p.win.selected()
	if !ok {
		return record.Task{}, false
	}
	for _, u := range p.unknown() {
		if u.LocalID == row.LocalID {
			return u, true
		}
	}
	return record.Task{}, false
}

func (p *tasksPage) attachDialog(t record.Task) tea.Cmd {
	d := newInputDialog(p.env.theme,
		fmt.Sprintf("Attach a task id to request #%d", t.LocalID),
		"Find the task in the service's own list (same operation and prompt, created "+t.CreatedAt.Local().Format("Jan 2 15:04")+
			") and paste its id. clapper checks it with the service before attaching.",
		"task id, e.g. 812345678901234567",
		func(v string) error {
			if err := api.CheckID(v); err != nil {
				return err
			}
			return nil
		},
		func(v string) tea.Cmd { return attachTask(p.env, t, v) })
	return func() tea.Msg { return openDialogMsg{d: d} }
}
