package studio_test

import (
	"context"
	"testing"
	"time"

	"clapper/api"
	"clapper/api/sandbox"
	"clapper/record"
	"clapper/studio"
)

// submitImage sends an image request to s and returns its history row.
func submitImage(t *testing.T, s *studio.Studio) record.Task {
	t.Helper()
	ctx := context.Background()
	sub, err := s.Submit(ctx, api.OpReference2Image, map[string]any{"model": "svcq2", "prompt": "a lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	task, err := s.Record().Task(ctx, sub.LocalID)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// loseTask records the service's not knowing task until it is lost.
func loseTask(t *testing.T, s *studio.Studio, task record.Task, at time.Time) {
	t.Helper()
	if _, err := s.Record().RecordNotFound(context.Background(), task.TaskID, at, api.ReasonTaskNotFound, 1, 0); err != nil {
		t.Fatal(err)
	}
	if lost, err := s.Record().LostTask(context.Background(), task.TaskID); err != nil || !lost {
		t.Fatalf("task %s not lost: %v", task.TaskID, err)
	}
}

// r on a task given up as lost, which the service knows after all and
// which succeeded meanwhile, follows it again and saves its results
// (auto-download is on by default); one still running is followed again
// and nothing is saved.
func TestRereadOfALostTaskFollowsItAgain(t *testing.T) {
	ctx := context.Background()
	t.Run("succeeded meanwhile: saved", func(t *testing.T) {
		isolated(t)
		clk := sandbox.NewFakeClock(wiringT0)
		s := openSandbox(t, resolved(t, studio.Config{}), clk)
		task := submitImage(t, s)
		loseTask(t, s, task, clk.Now())
		clk.Advance(time.Hour)
		if err := s.Reread(ctx, task); err != nil {
			t.Fatal(err)
		}
		now, err := s.Record().Task(ctx, task.LocalID)
		if err != nil {
			t.Fatal(err)
		}
		if now.State != api.StateSuccess {
			t.Errorf("after r the task reads %s, want success", now.State)
		}
		if lost, _ := s.Record().LostTask(ctx, task.TaskID); lost {
			t.Error("the task is still lost after the service answered for it")
		}
		if dls, err := s.Record().Downloads(ctx, task.TaskID); err != nil || len(dls) != 1 {
			t.Errorf("a lost task found succeeded: %d downloads queued (%v), want 1", len(dls), err)
		}
	})
	t.Run("still running: followed, nothing saved", func(t *testing.T) {
		isolated(t)
		clk := sandbox.NewFakeClock(wiringT0)
		s := openSandbox(t, resolved(t, studio.Config{}), clk)
		task := submitImage(t, s)
		loseTask(t, s, task, clk.Now())
		// A studio that forgot the task (a restart) follows it again on r.
		s2 := openSandbox(t, s.Config, clk)
		s.Close()
		if n := s2.Watching(); n != 0 {
			t.Fatalf("a fresh studio follows %d tasks before Load", n)
		}
		now, wasLost, err := s2.Refollow(ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		if !wasLost || api.IsTerminal(now.State) || now.TaskID != task.TaskID {
			t.Errorf("Refollow = %s %s, lost %v", now.TaskID, now.State, wasLost)
		}
		if n := s2.Watching(); n != 1 {
			t.Errorf("after r on a running task the watcher follows %d tasks, want 1", n)
		}
		if err := s2.Reread(ctx, task); err != nil {
			t.Errorf("r on a running task: %v", err)
		}
		if dls, _ := s2.Record().Downloads(ctx, task.TaskID); len(dls) != 0 {
			t.Errorf("a running task: %d downloads queued", len(dls))
		}
	})
}

// A task sent is followed at once, until it ends.
func TestSubmitFollowsWhatItSends(t *testing.T) {
	isolated(t)
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, resolved(t, studio.Config{}), clk)
	submitImage(t, s)
	if n := s.Watching(); n != 1 {
		t.Errorf("after one send the watcher follows %d tasks, want 1", n)
	}
}

// A queued task's cancel is sent and history reads the outcome at once
// (failed, UserCancelled); a cancel the service refuses says so.
func TestCancelRecordsTheOutcome(t *testing.T) {
	isolated(t)
	ctx := context.Background()
	clk := sandbox.NewFakeClock(wiringT0)
	s := openSandbox(t, resolved(t, studio.Config{}), clk)
	task := submitImage(t, s)
	if err := s.Cancel(ctx, task); err != nil {
		t.Fatal(err)
	}
	now, err := s.Record().Task(ctx, task.LocalID)
	if err != nil {
		t.Fatal(err)
	}
	if now.State != api.StateFailed || now.ErrCode != api.ReasonUserCancelled {
		t.Errorf("after a cancel history reads %s %s, want failed %s", now.State, now.ErrCode, api.ReasonUserCancelled)
	}
	// The row as it was before (created) passes our own check; the service
	// refuses the cancel of a failed task, and that refusal is returned.
	if err := s.Cancel(ctx, task); err == nil {
		t.Error("a cancel the service refuses returned no error")
	}
}
