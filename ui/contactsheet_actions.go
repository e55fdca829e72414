// The contact sheet's actions on its versions: keep, download, discard and
// bring back, send again. Each asks or writes through a command; the sheet
// re-reads on the message it answers.

package ui

import (
	"clapper/api"
	"clapper/internal/textutil"
	"clapper/record"
	"clapper/studio"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// keep marks the cell on the cursor as the set's keeper, or clears it when
// it is the keeper already.
func (c *contactSheet) keep() tea.Cmd {
	cell := c.current()
	line := cell.line
	if c.info.Keeper == line {
		line = 0
	}
	c.info.Keeper = line // shown at once; the write follows
	ctx, store, id, label := c.env.ctx, c.env.store(), c.setID, versionName(*cell)
	return func() tea.Msg {
		if err := store.KeepSetLine(ctx, id, line); err != nil {
			return statusMsg{text: "the keeper was not kept: " + api.CleanLine(err.Error()), bad: true}
		}
		// The lists show the star on the keeper's row: they read again.
		if line == 0 {
			return done("no keeper in this set now", changedTasks)
		}
		return done("★ "+label+" is the keeper", changedTasks)
	}
}

func (c *contactSheet) download() tea.Cmd {
	cell := c.current()
	t, ctx, s := *cell.task, c.env.ctx, c.env.studio
	if cell.saved != "" {
		return status("already saved: " + api.CleanLine(cell.saved) + savedHint(cell.saved, "o opens it"))
	}
	return func() tea.Msg {
		if err := s.Download(ctx, t); err != nil {
			return statusMsg{text: api.CleanLine(err.Error()), bad: true}
		}
		return done("downloading the results of task "+api.CleanLine(t.TaskID), changedTasks)
	}
}

// askDiscard confirms hiding the cell from the sheet, saying what stays.
func (c *contactSheet) askDiscard() tea.Cmd {
	cell := *c.current()
	body := "It is hidden from this sheet. Its task stays in history (the Tasks list still shows it)"
	if cell.saved != "" {
		body += ", and its saved file stays on disk: " + api.CleanLine(cell.saved)
	}
	body += "."
	if cell.line == c.info.Keeper {
		body += " It is the keeper: the set is left with none (space marks another)."
	}
	if t := cell.task; t != nil && inFlight(t.State) {
		// Hiding stops nothing: the service finishes it and bills it.
		cost := "its credits"
		if t.Credits > 0 {
			cost = textutil.Plural(int(t.Credits), "credit")
		}
		body += fmt.Sprintf(" It is still %s at the service: discarding does not stop it, and %s are spent all the same.", stateLabel(t.State), cost)
	}
	body += " u brings it back."
	ctx, store, id := c.env.ctx, c.env.store(), c.setID
	return func() tea.Msg {
		return openDialogMsg{d: &confirmDialog{
			title: "Discard " + versionName(cell) + "?",
			body:  body,
			onYes: func() tea.Msg {
				if err := store.DiscardSetLine(ctx, id, cell.line); err != nil {
					return statusMsg{text: "not discarded: " + api.CleanLine(err.Error()), bad: true}
				}
				return sheetChangedMsg{setID: id, discarded: cell.line, text: versionName(cell) + " discarded (its task and files stay; u brings it back)"}
			},
		}}
	}
}

// askRetry reads what R sends again (the failed and never-sent lines,
// their requests from history), prices it and checks the caps in a
// command, then asks, as a set's first send does; yes unties the failed
// lines (once each) and runs the set again.
func (c *contactSheet) askRetry() tea.Cmd {
	ctx, s, id := c.env.ctx, c.env.studio, c.setID
	noun := "versions"
	if c.info.Kind == record.SetBatch {
		noun = "lines"
	}
	return func() tea.Msg {
		retry, err := s.RetryRequests(ctx, id)
		if err != nil {
			return statusMsg{text: "R: " + api.CleanLine(err.Error()), bad: true}
		}
		reqs := retry.Requests()
		if len(reqs) == 0 {
			return statusMsg{text: "R: nothing to send again (a failed line is sent again once)"}
		}
		price := s.SetPrice(reqs)
		spent, overCap := s.SpendingFor(ctx, price, "these "+noun)
		var body strings.Builder
		if len(retry.Failed) > 0 {
			fmt.Fprintf(&body, "Failed, sent again once: %s\n", linesOf(retry.Failed))
		}
		if len(retry.Unsent) > 0 {
			fmt.Fprintf(&body, "Never sent: %s\n", linesOf(retry.Unsent))
		}
		fmt.Fprintf(&body, "Cost: %s for all %d\n", price.Text, len(reqs))
		if spent != "" {
			fmt.Fprintf(&body, "Spent: %s\n", spent)
		}
		fmt.Fprintf(&body, "The failed tasks stay in history; the new ones take their places on this sheet.")
		title := fmt.Sprintf("Send %d %s of set %d again?", len(reqs), noun, id)
		if overCap != "" {
			title = fmt.Sprintf("Send %d %s of set %d again, past a credit cap?", len(reqs), noun, id)
			why := strings.TrimPrefix(overCap, "not sent: ")
			fmt.Fprintf(&body, "\n! %s.", strings.ToUpper(why[:1])+why[1:])
		}
		return openDialogMsg{d: &confirmDialog{title: title, body: body.String(), onYes: func() tea.Msg {
			if len(retry.Failed) > 0 {
				if _, err := s.Record().RetryFailedLines(ctx, id); err != nil {
					return statusMsg{text: "not sent again: " + api.CleanLine(err.Error()), bad: true}
				}
			}
			run := s.NewSetRun(id, string(c.info.Kind), reqs)
			run.OverCap = overCap != "" // asked, and said yes
			if err := s.StartSet(run); err != nil {
				return statusMsg{text: "not sent again: " + api.CleanLine(err.Error()), bad: true}
			}
			return sheetChangedMsg{setID: id, text: fmt.Sprintf("set %d: %d %s sent again", id, len(reqs), noun)}
		}}}
	}
}

// linesOf names requests by their places: "2 (seed=7), 4 (seed=9)".
func linesOf(reqs []studio.SetRequest) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = fmt.Sprint(r.Line)
		if r.Label != "" {
			parts[i] += " (" + textutil.Clip(api.CleanLine(r.Label), 30) + ")"
		}
	}
	return textutil.Clip(strings.Join(parts, ", "), 200)
}

// restore brings back the line discarded last on this sheet, else (one
// discarded earlier, or on another machine) the last discarded line.
func (c *contactSheet) restore() tea.Cmd {
	cell := c.discarded[len(c.discarded)-1]
	for n := len(c.undo); n > 0; n = len(c.undo) {
		line := c.undo[n-1]
		c.undo = c.undo[:n-1]
		if i := slices.IndexFunc(c.discarded, func(d sheetCell) bool { return d.line == line }); i >= 0 {
			cell = c.discarded[i]
			break
		}
	}
	ctx, store, id := c.env.ctx, c.env.store(), c.setID
	return func() tea.Msg {
		if err := store.RestoreSetLine(ctx, id, cell.line); err != nil {
			return statusMsg{text: "not brought back: " + api.CleanLine(err.Error()), bad: true}
		}
		return sheetChangedMsg{setID: id, restored: cell.line, text: versionName(cell) + " is back on the sheet"}
	}
}

// sheetChangedMsg: lines were discarded (discarded: which, for u), brought
// back (restored: which, for the cursor) or sent again; the sheet re-reads.
type sheetChangedMsg struct {
	setID               int64
	discarded, restored int
	text                string
}

// versionName is how a cell is named in messages: "version 3 (seed=7)".
func versionName(cell sheetCell) string {
	if cell.label == "" {
		return fmt.Sprintf("line %d", cell.line)
	}
	return fmt.Sprintf("version %d (%s)", cell.line, api.CleanLine(cell.label))
}
