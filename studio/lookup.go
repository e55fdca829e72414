package studio

import (
	"context"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// Fetch reads task id from the service now and returns its answer as
// received: a multi-scene job by its own path when history knows it as
// one, or when the service knows no task by that id. Nothing is recorded
// (clapper get).
func (s *Studio) Fetch(ctx context.Context, id string) ([]byte, error) {
	if t, err := s.store.TaskByID(ctx, id); err == nil && t.Operation.IsMultiScene() {
		if job, err := s.client.GetOneClick(ctx, id); err == nil {
			return job.Raw, nil
		}
	}
	res, err := s.client.Get(ctx, id)
	if err == nil {
		return res.Raw, nil
	}
	if e, ok := api.AsError(err); ok && e.Status == 404 {
		if job, jerr := s.client.GetOneClick(ctx, id); jerr == nil {
			return job.Raw, nil
		}
	}
	return nil, err
}

// StateAtService reads the state the service gives task taskID of
// operation op (a multi-scene job by its own path); a task it does not
// know is an *api.Error of status 404.
func (s *Studio) StateAtService(ctx context.Context, op api.Operation, taskID string) (string, error) {
	if op.IsMultiScene() {
		j, err := s.client.GetOneClick(ctx, taskID)
		if err != nil {
			return "", err
		}
		if j.State == "" {
			return api.StateCreated, nil
		}
		return j.State, nil
	}
	r, err := s.client.Get(ctx, taskID)
	if err != nil {
		return "", err
	}
	return r.State, nil
}

// Attach ties request t, of unknown outcome, to the task taskID the
// service knows, and follows that task from its state there. The service
// is asked first: an id it does not know is refused (404) and t stays as
// it was.
func (s *Studio) Attach(ctx context.Context, t record.Task, taskID string) (state string, err error) {
	if state, err = s.StateAtService(ctx, t.Operation, taskID); err != nil {
		return "", err
	}
	if err := s.store.ResolveUnknown(ctx, t.LocalID, taskID); err != nil {
		return "", err
	}
	// Followed from the state the record now holds: a task that ended at
	// the service is read once (its results and credits recorded), where a
	// settled state given to the watcher would never be read.
	s.watcher.Watch(taskID, t.Operation, t.Model, api.StateCreated, t.CreatedAt)
	s.watcher.Wake(taskID)
	return state, nil
}

// Resubmit sends again request localID, refused before, as the same record.
func (s *Studio) Resubmit(ctx context.Context, localID int64, op api.Operation) (*track.Submission, error) {
	return s.tracker.Resubmit(s.reportSending(ctx, op), localID, op)
}
