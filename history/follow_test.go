package history

import (
	"context"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func followIDs(t *testing.T, s *Store, seq int64) (ids []string, next int64) {
	t.Helper()
	tasks, next, err := s.FollowableSince(context.Background(), seq)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		ids = append(ids, task.TaskID+":"+task.State)
	}
	return ids, next
}

// Called again, FollowableSince lists only what was written since: a task
// another process sent, a task that ended leaves, a settled job that got an
// edit comes back as processing, and nothing at all when nothing changed.
func TestFollowableSinceReadsOnlyChanges(t *testing.T) {
	open := sharedDatabase(t)
	s := open()
	ctx := context.Background()
	submitted(t, s, "tk-1", `{"prompt":"a"}`)
	submitted(t, s, "tk-2", `{"prompt":"b"}`)
	mustBegin(t, s, `{"prompt":"not sent yet"}`)
	ids, next := followIDs(t, s, 0)
	if !slices.Equal(ids, []string{"tk-1:created", "tk-2:created"}) {
		t.Fatalf("first read %v", ids)
	}
	if ids, again := followIDs(t, s, next); len(ids) != 0 || again != next {
		t.Fatalf("nothing written, yet %v (seq %d -> %d)", ids, next, again)
	}

	// Another process: its own store on the same file.
	other := open()
	submitted(t, other, "tk-3", `{"prompt":"c"}`)
	if _, err := other.ApplyResult(ctx, "tk-1", record.Update{State: api.StateSuccess}); err != nil {
		t.Fatal(err)
	}
	ids, next = followIDs(t, s, next)
	if !slices.Equal(ids, []string{"tk-3:created"}) {
		t.Fatalf("after another process wrote: %v", ids)
	}

	savedJobTask(t, s, api.StateSuccess)
	_, next = followIDs(t, s, next)
	if err := other.AddVersion(ctx, "job-1", api.RecordGenerateVideo, 0, record.SubJob{ID: "s0-v2", Prompt: "again", Duration: 5}); err != nil {
		t.Fatal(err)
	}
	if ids, _ = followIDs(t, s, next); !slices.Equal(ids, []string{"job-1:processing"}) {
		t.Fatalf("after an edit of a settled job: %v", ids)
	}
}

// A read that says what history holds commits nothing, so no process sees
// a change; a read that says something new does.
func TestApplyResultUnchangedWritesNothing(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-1", `{"prompt":"a"}`)
	conn, err := s.r.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// SQLite numbers the commits of other connections; on PostgreSQL a
	// commit that wrote would have moved a task or added an event.
	read := `PRAGMA data_version`
	if backend == "postgres" {
		read = `SELECT (SELECT max(change_seq) FROM tasks) + (SELECT count(*) FROM task_events)`
	}
	version := func() (v int64) {
		if err := conn.QueryRowContext(ctx, read).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	queued := record.Update{State: api.StateQueueing, Raw: []byte(`{"state":"queueing"}`)}
	if _, err := s.ApplyResult(ctx, "tk-1", queued); err != nil {
		t.Fatal(err)
	}
	before := version()
	for range 3 {
		if changed, err := s.ApplyResult(ctx, "tk-1", queued); err != nil || changed {
			t.Fatalf("the same read again: changed %v, %v", changed, err)
		}
	}
	// A read without a body (a poll that carried only the state) that says
	// the same writes nothing either.
	if changed, err := s.ApplyResult(ctx, "tk-1", record.Update{State: api.StateQueueing}); err != nil || changed {
		t.Fatalf("the same state without a body: changed %v, %v", changed, err)
	}
	if after := version(); after != before {
		t.Errorf("the same read wrote: data_version %d -> %d", before, after)
	}
	if _, err := s.ApplyResult(ctx, "tk-1", record.Update{State: api.StateQueueing, Progress: ptr[int64](5), Raw: queued.Raw}); err != nil {
		t.Fatal(err)
	}
	if version() == before {
		t.Error("new progress was not written")
	}
}

// The first read (seq 0) is the whole history oldest first, whatever order
// the tasks were last written in.
func TestFollowableFromTheStartIsOldestFirst(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	submitted(t, s, "tk-old", `{"prompt":"a"}`)
	clk.Advance(time.Second)
	submitted(t, s, "tk-new", `{"prompt":"b"}`)
	if _, err := s.ApplyResult(ctx, "tk-old", record.Update{State: api.StateQueueing}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := followIDs(t, s, 0); !slices.Equal(ids, []string{"tk-old:queueing", "tk-new:created"}) {
		t.Errorf("first read %v; want oldest first", ids)
	}
}
