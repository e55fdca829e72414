package studio

import (
	"context"
	"fmt"

	"clapper/api"
	"clapper/record"
	"clapper/track"
)

// Reread reads a task from the service now and records the answer (the
// TUI's r). The answer shows the service knows the task, so one given up as
// lost is followed again, and its results are downloaded when it succeeded
// meanwhile and auto-download is on.
func (s *Studio) Reread(ctx context.Context, t record.Task) error {
	now, wasLost, err := s.Refollow(ctx, t)
	if err == nil && wasLost && now.State == api.StateSuccess && s.Config.AutoDownload {
		err = s.Download(ctx, now)
	}
	return err
}

// Refollow reads a task from the service now, records the answer and, as
// the answer shows the service knows the task, ends a run of answers that
// it did not (wasLost says whether that run had made the task lost). A task
// still running is followed by this studio's watcher unless it only sends.
// It returns the task as history now holds it.
func (s *Studio) Refollow(ctx context.Context, t record.Task) (now record.Task, wasLost bool, err error) {
	if t.TaskID == "" {
		return t, false, fmt.Errorf("request #%d has no task id to read", t.LocalID)
	}
	if err := track.Reread(ctx, s.client, s.store, s.opts.Watcher.Clock, t.Operation, t.TaskID); err != nil {
		return t, false, err
	}
	if wasLost, err = s.store.Refollow(ctx, t.TaskID); err != nil {
		return t, false, err
	}
	if now, err = s.store.TaskByID(ctx, t.TaskID); err != nil {
		return t, wasLost, err
	}
	if !api.IsTerminal(now.State) && !s.opts.SendOnly {
		created := now.ServiceCreatedAt
		if created.IsZero() {
			created = now.CreatedAt
		}
		s.watcher.Watch(now.TaskID, now.Operation, now.Model, now.State, created)
	}
	return now, wasLost, nil
}

// Cancel asks the service to cancel a task (queued or held for off-peak),
// then reads it so history shows the outcome.
func (s *Studio) Cancel(ctx context.Context, t record.Task) error {
	if t.TaskID == "" {
		return fmt.Errorf("request #%d has no task id to cancel", t.LocalID)
	}
	if !Cancellable(t) {
		return fmt.Errorf("task %s is %s: only a queued task or one held for off-peak can be cancelled", t.TaskID, t.State)
	}
	if err := s.client.Cancel(ctx, t.TaskID); err != nil {
		return err
	}
	return s.Reread(ctx, t)
}

// Cancellable reports whether the service takes a cancel for the task: while
// it waits in the queue or for its off-peak window.
func Cancellable(t record.Task) bool {
	if t.TaskID == "" || t.Operation.IsOneClick() {
		return false
	}
	switch t.State {
	case api.StateCreated, api.StateQueueing:
		return true
	case api.StateProcessing:
		return t.OffPeak
	}
	return false
}

// Submit records a request, sends it and follows the task it created
// until it ends (a speech synthesis may answer "queueing" too).
func (s *Studio) Submit(ctx context.Context, op api.Operation, body map[string]any) (*track.Submission, error) {
	return s.SubmitFrom(ctx, op, body, nil)
}

// SubmitFrom is Submit for a request sent onward from parent tasks (one
// per field; none for none): history ties the new task to them as the
// request is recorded.
func (s *Studio) SubmitFrom(ctx context.Context, op api.Operation, body map[string]any, parents []record.Parent) (*track.Submission, error) {
	sub, err := s.sendLinked(ctx, op, body, nil, parents)
	if err != nil {
		return nil, err
	}
	id := sub.Task.Identifier()
	if res := track.SyncResult(sub.Task); res != nil {
		// A clone's preview or a speech answered at once: saved like any
		// result, or left unsaved by choice like any (leaveUnsaved).
		var err error
		if s.savesOnSuccess() {
			err = s.SaveResults(ctx, id, res)
		} else {
			err = s.leaveUnsaved(ctx, id)
		}
		if err != nil {
			s.publish(track.Event{Kind: track.EventDownload, TaskID: id, Operation: op, Err: err, At: s.Now()})
		}
	}
	if id != "" && !api.IsTerminal(sub.Task.State) {
		s.watcher.Watch(id, op, sub.Model, sub.Task.State, sub.Sent)
	}
	return sub, nil
}
