package track

import (
	"context"

	"clapper/api"
)

// Reread reads a task (or a multi-scene job) from the service now, outside
// any schedule, and records the answer as a poll would: fresh result URLs
// for a finished task whose links lapsed, or the state after a cancel.
func Reread(ctx context.Context, client *api.Client, store Store, clock Clock, op api.Operation, id string) error {
	if clock == nil {
		clock = WallClock
	}
	if op.IsMultiScene() {
		j, err := client.GetOneClick(ctx, id)
		if err != nil {
			return err
		}
		_, err = store.SaveJob(ctx, *j)
		return err
	}
	res, err := client.Get(ctx, id)
	if err != nil {
		return err
	}
	_, err = store.ApplyResult(ctx, id, updateFrom(res, clock.Now()))
	return err
}
