package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
	"clapper/studio"
)

// Extending and upscaling a finished video: + and u in a task's detail and
// on its Tasks row, and the send-onward list, open extend's or
// upscale-new's form with the video named by its creation id
// (video_creation_id), which lapses with no URL: a video whose URL expired
// is still extended. A video the service gave no creation id goes by its
// URL (video_url) or not at all, as any result sent onward.

// creationField is the field extend and upscale-new name a finished task's
// video by.
const creationField = "video_creation_id"

// sourceVideoMsg asks the root to open op's form on task LocalID's video.
type sourceVideoMsg struct {
	LocalID int64
	Op      api.Operation
}

// sourceVideoKeys are the two keys, shared by the detail and the Tasks
// page so they read the same everywhere.
func extendKey() key.Binding {
	return key.NewBinding(key.WithKeys("+"), key.WithHelp("+", "extend the video (1-7 s)"))
}

func upscaleKey() key.Binding {
	return key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "upscale the video"))
}

// isFinishedVideo reports whether a task made a video to extend or
// upscale (a list's row carries no results: whether the service reported
// one is read when the key is pressed).
func isFinishedVideo(t *record.Task) bool {
	return t != nil && t.State == api.StateSuccess && catalog.OutputOf(t.Operation) == catalog.OutputVideo
}

// creationID is the id of a task's first video, "" when the service gave none.
func creationID(t record.Task) string {
	for _, c := range t.Creations {
		if c.ID != "" {
			return api.CleanLine(c.ID)
		}
	}
	return ""
}

// byCreation is the place a video goes by its creation id in op's form.
func byCreation(op api.Operation) (catalog.Target, bool) {
	f, ok := catalog.FieldOf(op, creationField)
	if !ok {
		return catalog.Target{}, false
	}
	return catalog.Target{Operation: op, Field: f.Name, Index: -1, Takes: catalog.OutputVideo, Name: "the video, by its creation id"}, true
}

// sendByCreation is what choosing op for task t sends: its creation id
// into video_creation_id, or ok false where it has none.
func sendByCreation(t record.Task, op api.Operation) (onwardChosenMsg, bool) {
	id := creationID(t)
	target, ok := byCreation(op)
	if id == "" || !ok {
		return onwardChosenMsg{}, false
	}
	src := studio.Onward{Task: t, Output: catalog.OutputVideo, Value: id, Why: "its video's creation id " + id + " (it does not lapse)"}
	return onwardChosenMsg{src: src, target: target}, true
}

// sourceNote is what the status line says when op's form takes task t's
// video by its creation id, the part that matters first (80 columns cut
// the rest): for upscale-new, the source's resolution, which the target
// must be above (the service refuses one that is not).
func sourceNote(op api.Operation, t record.Task) string {
	note := fmt.Sprintf("#%d's video (%s %s) is %s's source, by its creation id", t.LocalID, t.Operation, glyph(t.State), op)
	res := sourceResolution(t)
	switch top := catalog.UpscaleResolutions[len(catalog.UpscaleResolutions)-1]; {
	case op != api.OpUpscaleNew || res == "":
	case strings.EqualFold(res, top):
		note = fmt.Sprintf("#%d's video (%s %s) is already %s: no resolution is above it", t.LocalID, t.Operation, glyph(t.State), top)
	default:
		note = fmt.Sprintf("#%d's video (%s %s, %s) is %s's source: choose above %s", t.LocalID, t.Operation, glyph(t.State), res, op, res)
	}
	return note
}

// sourceResolution is the resolution a task asked for (an upscale's
// target, else its resolution or the model's default), "" when its
// request says none.
func sourceResolution(t record.Task) string {
	var req map[string]any
	if json.Unmarshal(t.Request, &req) != nil {
		return ""
	}
	full := catalog.WithDefaults(t.Operation, req)
	for _, k := range []string{"upscale_resolution", "resolution"} {
		if r, ok := full[k].(string); ok && r != "" {
			return api.CleanLine(r)
		}
	}
	return ""
}

// readSourceVideo reads the task in a command and answers with the form to
// open: by creation id, else by the result URL while it is valid, else why
// neither.
func readSourceVideo(e *env, msg sourceVideoMsg) tea.Cmd {
	ctx, s, store, now := e.ctx, e.studio, e.store(), e.now()
	return func() tea.Msg {
		t, err := store.Task(ctx, msg.LocalID)
		if err != nil {
			return statusMsg{text: api.CleanLine(err.Error()), bad: true}
		}
		if !isFinishedVideo(&t) {
			return statusMsg{text: fmt.Sprintf("task #%d has no finished video to %s", t.LocalID, verbOf(msg.Op)), bad: true}
		}
		if chosen, ok := sendByCreation(t, msg.Op); ok {
			return chosen
		}
		src, err := s.OnwardFrom(ctx, t.LocalID, now)
		if err != nil {
			return statusMsg{text: api.CleanLine(err.Error()), bad: true}
		}
		i := slices.IndexFunc(onwardTargets(src), func(tg catalog.Target) bool { return tg.Operation == msg.Op })
		if i < 0 {
			return statusMsg{text: fmt.Sprintf("task #%d's video has no creation id and %s takes no saved file: its URL has lapsed", t.LocalID, msg.Op), bad: true}
		}
		return onwardChosenMsg{src: src, target: onwardTargets(src)[i]}
	}
}

// verbOf is what an operation does to a video, for messages.
func verbOf(op api.Operation) string {
	if op == api.OpUpscaleNew {
		return "upscale"
	}
	return "extend"
}

// creationTargets are the places that name a video by its creation id.
func creationTargets() []catalog.Target {
	var ts []catalog.Target
	for _, op := range api.Operations() {
		if t, ok := byCreation(op); ok {
			ts = append(ts, t)
		}
	}
	return ts
}

// withCreationTargets puts, in the send-onward list of a video that has a
// creation id, each operation that names a video by it in place of its
// video_url: the id does not lapse, and the service prefers it.
func withCreationTargets(src studio.Onward, ts []catalog.Target) []catalog.Target {
	if src.Output != catalog.OutputVideo || creationID(src.Task) == "" {
		return ts
	}
	out := make([]catalog.Target, 0, len(ts))
	for _, t := range ts {
		if c, ok := byCreation(t.Operation); ok && t.Field == "video_url" {
			t = c
		}
		out = append(out, t)
	}
	return out
}
