package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"clapper/api"
	"clapper/api/catalog"
	"clapper/record"
	"clapper/studio"
)

// fromTask fills a request's field with a task's result (clapper create
// --from TASK_ID[:field]): the result URL while it stays valid, else the
// saved file, or a cloned voice's id. It returns the parent link to record
// with the request. Every refusal is exit 2: nothing was sent.
func (app *App) fromTask(ctx context.Context, op api.Operation, body map[string]any, ref string) (*record.Parent, error) {
	refuse := func(err error) (*record.Parent, error) {
		return nil, &ExitError{Code: 2, Err: fmt.Errorf("--from %s: %w", api.CleanText(ref), err)}
	}
	id, label, _ := strings.Cut(ref, ":")
	store, err := app.openStore(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var t record.Task
	var local int64
	if _, serr := fmt.Sscanf(id, "#%d", &local); serr == nil {
		t, err = store.Task(ctx, local)
	} else {
		t, err = store.TaskByID(ctx, id)
	}
	if errors.Is(err, record.ErrNotFound) {
		return refuse(fmt.Errorf("no task %s in this history (clapper history lists them; #N is a row's number)", api.CleanText(id)))
	}
	if err != nil {
		return nil, err
	}
	src, err := studio.ReadOnward(ctx, store, t.LocalID, app.now())
	if err != nil {
		return refuse(err)
	}
	target, err := catalog.TargetNamed(op, src.Output, label)
	if err != nil {
		return refuse(fmt.Errorf("task %s (%s) made %s: %w", taskName(t), t.Operation, src.Output, err))
	}
	if target.URLOnly && src.FromFile {
		return refuse(fmt.Errorf("%s takes only a URL the service fetches, and %s", target.Label(), src.Why))
	}
	if model, _ := body["model"].(string); len(target.Models) > 0 && model == "" {
		body["model"] = target.Models[0]
	} else if len(target.Models) > 0 && !slices.Contains(target.Models, model) {
		return refuse(fmt.Errorf("%s %s is taken by %s, not %s", op, target.Label(), strings.Join(target.Models, ", "), model))
	}
	v, placed := target.Place(body[target.Field], src.Value)
	if err := catalog.InlineValue(op, target.Field, &v, "."); err != nil {
		return refuse(err)
	}
	body[target.Field] = v
	fmt.Fprintf(app.Err, "clapper: %s %s holds %s of task %s (%s): %s\n", op, placed, src.Output, taskName(t), t.Operation, api.CleanText(src.Why))
	return &record.Parent{LocalID: t.LocalID, Field: placed}, nil
}

// taskName is a task as the user knows it: its service id, or #N for a
// request that has none.
func taskName(t record.Task) string {
	if t.TaskID != "" {
		return api.CleanText(t.TaskID)
	}
	return fmt.Sprintf("#%d", t.LocalID)
}
