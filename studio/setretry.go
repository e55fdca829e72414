package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
)

// SetRetry is what a set's contact sheet sends again (R): the lines whose
// task failed, each once (a line sent again before is not), and the lines
// never sent, their requests rebuilt from history. batch --retry-failed is
// its twin for a batch file.
type SetRetry struct {
	Failed, Unsent []SetRequest
}

// Requests are the failed and the never-sent lines' requests, by line.
func (r SetRetry) Requests() []SetRequest {
	out := append(slices.Clip(r.Failed), r.Unsent...)
	slices.SortFunc(out, func(a, b SetRequest) int { return a.Line - b.Line })
	return out
}

// RetryRequests reads set setID's lines to send again. A failed line's
// request is its task's; a version never sent is a sibling's request with
// its own label's value (seed=7, prompt=…), as the set made it. What
// history cannot give back is named in the error: a request whose files
// were sent inline (history keeps their digests, not their bytes), a batch
// line never sent (its request is in the file), a set still running here.
func (s *Studio) RetryRequests(ctx context.Context, setID int64) (SetRetry, error) {
	if s.SetActivity(setID).Running {
		return SetRetry{}, fmt.Errorf("set %d is still running here: its failed versions can be sent again once it ends", setID)
	}
	info, err := s.store.Set(ctx, setID)
	if err != nil {
		return SetRetry{}, err
	}
	members, err := s.store.SetMembers(ctx, setID)
	if err != nil {
		return SetRetry{}, err
	}
	place := func(line int) string {
		if info.Kind == record.SetVariations {
			return fmt.Sprintf("version %d", line)
		}
		return fmt.Sprintf("line %d", line)
	}
	var out SetRetry
	var base map[string]any // a sibling's request: what a version never sent is made from
	var never []record.SetMember
	for _, m := range members {
		if m.Discarded {
			continue
		}
		if m.LocalID == 0 {
			never = append(never, m)
			continue
		}
		t, err := s.store.Task(ctx, m.LocalID)
		if err != nil {
			return SetRetry{}, err
		}
		body, berr := storedRequest(t)
		if base == nil && berr == nil {
			base = body
		}
		var list *[]SetRequest
		switch {
		case refusedForNow(t):
			list = &out.Unsent
		case t.State == api.StateFailed && !m.Retried:
			list = &out.Failed
		default:
			continue
		}
		if berr != nil {
			return SetRetry{}, fmt.Errorf("%s (#%d): %w", place(m.Line), m.LocalID, berr)
		}
		*list = append(*list, SetRequest{Line: m.Line, Op: m.Operation, Body: body, Label: m.Label, Content: m.Content})
	}
	for _, m := range never {
		switch {
		case info.Kind != record.SetVariations:
			return SetRetry{}, fmt.Errorf("%s was never sent, and its request is in the batch file: clapper batch FILE sends it", place(m.Line))
		case base == nil:
			return SetRetry{}, fmt.Errorf("%s was never sent, and no version of set %d was: history holds no request to make it from", place(m.Line), setID)
		}
		field, value, ok := strings.Cut(m.Label, "=")
		if !ok {
			return SetRetry{}, fmt.Errorf("%s: its label %q names no field=value to make it from", place(m.Line), api.CleanLine(m.Label))
		}
		body := cloneBody(base)
		delete(body, field)
		if err := setScalar(m.Operation)(body, field, value); err != nil {
			return SetRetry{}, fmt.Errorf("%s: %w", place(m.Line), err)
		}
		out.Unsent = append(out.Unsent, SetRequest{Line: m.Line, Op: m.Operation, Body: body, Label: m.Label})
	}
	return out, nil
}

// storedRequest is the request history kept of t, refused when a file of
// it was sent inline: history keeps the file's digest, not its bytes.
func storedRequest(t record.Task) (map[string]any, error) {
	if len(t.Request) == 0 {
		return nil, fmt.Errorf("history holds no request of it")
	}
	dec := json.NewDecoder(bytes.NewReader(t.Request))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		return nil, fmt.Errorf("its request in history is no JSON object: %w", err)
	}
	if inlined(body) {
		return nil, fmt.Errorf("its files were sent inline and history keeps only their digests: open it (enter) and duplicate it (e) with the files")
	}
	return body, nil
}

// inlined finds a stripped data URI (record.MediaRef.Placeholder)
// anywhere in v.
func inlined(v any) bool {
	switch x := v.(type) {
	case string:
		return catalog.IsDataURI(x) && !strings.Contains(x, ",") && strings.Contains(x, ";sha256=")
	case []any:
		return slices.ContainsFunc(x, inlined)
	case map[string]any:
		for _, e := range x {
			if inlined(e) {
				return true
			}
		}
	}
	return false
}
