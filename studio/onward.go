package studio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
	"clapper/scenes"
	"clapper/track"
)

// Sending a result onward: what a finished task gives to another request,
// for the TUI's s, clapper create --from and the MCP server alike.

// OnwardMargin is how long a result URL must stay valid to be sent on: the
// service fetches it after the request is taken, sometimes after a queue,
// so a URL about to lapse gives way to the saved file.
const OnwardMargin = 10 * time.Minute

// Onward is what a finished task gives to send onward.
type Onward struct {
	Task   record.Task
	Output catalog.Output
	// Value is a result URL still valid, else the saved file's path, or
	// the voice id of a cloned voice.
	Value string
	// FromFile says Value is the saved file: the URL lapsed, or lapses
	// within OnwardMargin, or its download failed.
	FromFile bool
	// Why says what Value is, for a status line: "the result URL (valid
	// 23h59m)", "the saved file (the URL expired)".
	Why string
}

// NothingOnwardError is a task with nothing to send onward; its text says
// why.
type NothingOnwardError struct{ Why string }

func (e *NothingOnwardError) Error() string { return e.Why }

// OnwardFrom reads what task localID gives to send onward, at now.
func (s *Studio) OnwardFrom(ctx context.Context, localID int64, now time.Time) (Onward, error) {
	return ReadOnward(ctx, s.store, localID, now)
}

// ReadOnward is OnwardFrom on a history alone, for commands that read the
// task before they start a studio (clapper create --from).
func ReadOnward(ctx context.Context, store record.Store, localID int64, now time.Time) (Onward, error) {
	t, err := store.Task(ctx, localID)
	if err != nil {
		return Onward{}, err
	}
	dls, unsaved, err := ResultDownloads(ctx, store, t)
	if err != nil {
		return Onward{}, err
	}
	if unsaved != "" && t.State == api.StateSuccess {
		if u, left := LiveURL(t, dls, now); u == "" || left < OnwardMargin {
			return Onward{}, &NothingOnwardError{Why: fmt.Sprintf("task #%d cannot be sent onward yet: its newest %s is not saved here, and its URL lives under 3 minutes; "+
				"save it in the scene editor (Scenes page, D), then send it onward", t.LocalID, unsaved)}
		}
	}
	var voices []record.Voice
	if catalog.OutputOf(t.Operation) == catalog.OutputVoice {
		if voices, err = store.Voices(ctx); err != nil {
			return Onward{}, err
		}
	}
	return OnwardOf(t, dls, voices, now, fileExists)
}

// ResultDownloads reads the downloads that stand for task t's result. A
// multi-scene job's result is its newest cut (history keeps its URL as the
// task's): once a new composition replaced the first cut, the file saved
// of the newest stands for the result in place of the first cut's, which
// the task saved when it succeeded; while the newest is not saved, no file
// does, and unsaved names it ("cut v2").
func ResultDownloads(ctx context.Context, store record.Store, t record.Task) (dls []record.Download, unsaved string, err error) {
	if t.TaskID == "" {
		return nil, "", nil
	}
	if dls, err = store.Downloads(ctx, t.TaskID); err != nil || t.Operation != api.OpGeneralOneClick {
		return dls, "", err
	}
	j, err := store.Job(ctx, t.TaskID)
	if errors.Is(err, record.ErrNotFound) {
		return dls, "", nil // the job was never read: the task's result is all there is
	}
	if err != nil {
		return nil, "", err
	}
	cut, label, ok := scenes.LastCut(j)
	if !ok || (len(j.Compose[0].Jobs) > 0 && j.Compose[0].Jobs[0].ID == cut.ID) {
		return dls, "", nil // the first cut is the task's own result
	}
	first := slices.IndexFunc(dls, func(d record.Download) bool { return d.Index == 0 && d.Kind == record.KindURL })
	if d := cut.Download; d == nil || d.Status != record.DownloadDone || d.Path == "" {
		if first >= 0 {
			dls = slices.Delete(slices.Clone(dls), first, first+1)
		}
		return dls, "cut " + label, nil
	}
	saved := record.Download{LocalID: t.LocalID, TaskID: t.TaskID, Operation: t.Operation, Kind: record.KindURL,
		Path: cut.Download.Path, Bytes: cut.Download.Bytes, Total: cut.Download.Bytes, Status: record.DownloadDone, UpdatedAt: cut.Download.UpdatedAt}
	if first < 0 {
		return append(slices.Clone(dls), saved), "", nil
	}
	dls = slices.Clone(dls)
	saved.ID, saved.CreatedAt = dls[first].ID, dls[first].CreatedAt
	dls[first] = saved
	return dls, "", nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// OnwardOf decides what a task gives to send onward: a live result URL,
// else the saved file (exists says whether it is still on disk), else an
// *NothingOnwardError saying why not. A cloned voice gives its id
// while the service keeps it.
func OnwardOf(t record.Task, dls []record.Download, voices []record.Voice, now time.Time, exists func(string) bool) (Onward, error) {
	out := Onward{Task: t, Output: catalog.OutputOf(t.Operation)}
	nothing := func(format string, args ...any) (Onward, error) {
		return Onward{}, &NothingOnwardError{Why: fmt.Sprintf("task #%d ", t.LocalID) + fmt.Sprintf(format, args...)}
	}
	if t.State != api.StateSuccess {
		return nothing("has not succeeded (it is %s): only a finished result can be sent onward", t.State)
	}
	if out.Output == catalog.OutputVoice {
		return voiceOnward(out, voices, now, nothing)
	}
	if u, left := LiveURL(t, dls, now); u != "" && left >= OnwardMargin {
		out.Value, out.Why = u, "the result URL (valid "+shortDuration(left)+")"
		return out, nil
	}
	why := "the URL expired"
	if u, left := LiveURL(t, dls, now); u != "" {
		why = "the URL lapses in " + shortDuration(left)
	} else if len(t.Creations) == 0 {
		return nothing("has no result: the service reported none")
	}
	for _, dl := range dls {
		if dl.Kind == record.KindURL && dl.Status == record.DownloadDone && dl.Path != "" && exists(dl.Path) {
			out.Value, out.FromFile, out.Why = dl.Path, true, "the saved file ("+why+")"
			return out, nil
		}
	}
	return nothing("cannot be sent onward: %s and its result was never saved here (r re-reads the task for a fresh URL)", why)
}

func voiceOnward(out Onward, voices []record.Voice, now time.Time, nothing func(string, ...any) (Onward, error)) (Onward, error) {
	var req struct {
		VoiceID string `json:"voice_id"`
	}
	if json.Unmarshal(out.Task.Request, &req) != nil || req.VoiceID == "" {
		return nothing("names no voice in its request")
	}
	for _, v := range voices {
		if v.VoiceID != req.VoiceID {
			continue
		}
		switch {
		case v.Deleted:
			return nothing("made voice %s, which is gone (the service dropped it, or it was forgotten here)", req.VoiceID)
		case v.Expired(now):
			return nothing("made voice %s, which the service deleted at %s: unused voices last 168 h", req.VoiceID, v.ExpiresAt.Local().Format("Jan 2 15:04"))
		}
	}
	out.Value, out.Why = req.VoiceID, "voice "+req.VoiceID
	return out, nil
}

// LiveURL is a task's first result URL not known to be dead (not past its
// expiry, and not one whose download expired or failed), and how long it
// stays valid (a day when the expiry is unknown).
func LiveURL(t record.Task, dls []record.Download, now time.Time) (string, time.Duration) {
	for _, c := range t.Creations {
		if c.URL == "" || (!c.URLExpiresAt.IsZero() && !now.Before(c.URLExpiresAt)) {
			continue
		}
		dead := false
		for _, dl := range dls {
			if dl.Index == c.Index && dl.Kind == record.KindURL && dl.URL == c.URL &&
				(dl.Status == record.DownloadExpired || dl.Status == record.DownloadFailed) {
				dead = true
			}
		}
		if dead {
			continue
		}
		if c.URLExpiresAt.IsZero() {
			return c.URL, 24 * time.Hour
		}
		return c.URL, c.URLExpiresAt.Sub(now)
	}
	return "", 0
}

// shortDuration is a duration to the minute, as people write it: 23h59m,
// 4m; under a minute, "under a minute".
func shortDuration(d time.Duration) string {
	d = d.Truncate(time.Minute)
	if d < time.Minute {
		return "under a minute"
	}
	s := strings.TrimSuffix(d.String(), "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// SendFrom is Send for a request sent onward from parent tasks (one per
// field their results fill; none for none): history ties the new task to
// them as the request is recorded.
func (s *Studio) SendFrom(ctx context.Context, op api.Operation, body map[string]any, parents []record.Parent) (*track.Submission, error) {
	return s.sendLinked(ctx, op, body, nil, parents)
}

// resultParents adds to the parents given the tasks whose result URLs the
// request's fields hold, one per field not tied already: a result sent
// onward before a restart, pasted, or typed in another front end is still
// a link. A lookup that fails ties nothing more (the send goes on).
func (s *Studio) resultParents(ctx context.Context, op api.Operation, body map[string]any, given []record.Parent) []record.Parent {
	tied := map[string]bool{}
	for _, p := range given {
		tied[p.Field] = true
	}
	type place struct{ label, url string }
	var places []place
	var urls []string
	for _, out := range []catalog.Output{catalog.OutputImage, catalog.OutputVideo, catalog.OutputAudio} {
		for _, t := range catalog.TargetsOf(op, out) {
			for _, u := range urlsIn(body[t.Field]) {
				if label, ok := t.Holds(body[t.Field], u); ok && !tied[label] {
					tied[label] = true
					places = append(places, place{label, u})
					urls = append(urls, u)
				}
			}
		}
	}
	if len(urls) == 0 {
		return given
	}
	found, err := s.store.TasksByResultURL(ctx, urls)
	if err != nil {
		return given
	}
	out := slices.Clone(given)
	for _, p := range places {
		if id, ok := found[p.url]; ok {
			out = append(out, record.Parent{LocalID: id, Field: p.label})
		}
	}
	return out
}

// urlsIn are the http(s) URLs a field's value holds: itself, its items,
// its subjects' images or its key frames' images.
func urlsIn(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if strings.HasPrefix(x, "https://") || strings.HasPrefix(x, "http://") {
				out = append(out, x)
			}
		case []any:
			for _, it := range x {
				walk(it)
			}
		case map[string]any:
			walk(x["images"])
			walk(x["key_image"])
		}
	}
	walk(v)
	return out
}

// ChainLink is one end of a task's chain as the CLI's --json and the MCP
// server answer it.
type ChainLink struct {
	LocalID   int64  `json:"local_id"`
	TaskID    string `json:"task_id,omitempty"`
	Operation string `json:"operation"`
	State     string `json:"state"`
	// Field is the child's field the parent's result filled (images[0]),
	// and Place the same in people's words (the first frame).
	Field string `json:"field"`
	Place string `json:"place,omitempty"`
}

// Chain is where a task came from (one link per field a result filled;
// none when it was sent from nothing) and where its result went, as read
// with the task's detail.
func Chain(t record.Task) (from, onward []ChainLink) {
	for _, l := range t.From {
		from = append(from, chainLink(l, t.Operation, l.Operation))
	}
	for _, l := range t.Onward {
		onward = append(onward, chainLink(l, l.Operation, t.Operation))
	}
	return from, onward
}

func chainLink(l record.Link, child, parent api.Operation) ChainLink {
	return ChainLink{LocalID: l.LocalID, TaskID: api.CleanText(l.TaskID), Operation: string(l.Operation), State: l.State,
		Field: api.CleanText(l.Field), Place: PlaceOf(l, child, parent)}
}

// PlaceOf is the child's field of a link in people's words where the
// catalog has them ("the first frame"), else its wire label.
func PlaceOf(l record.Link, child, parent api.Operation) string {
	if tg, ok := catalog.TargetFor(child, l.Field, catalog.OutputOf(parent)); ok {
		return tg.Name
	}
	return api.CleanText(l.Field)
}
