package history

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// Paging upwards from any row, or from the bottom, gives the rows a
// newest-first walk gives, in the opposite order, with a text filter too.
func TestTasksReversePaging(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	var rows []row
	for i := range 7 {
		rows = append(rows, row{api.OpText2Video, "svcq1", "red fox number", api.StateSuccess, 1, t0.Add(time.Duration(i) * time.Minute)})
	}
	ids := seed(t, s, clk, rows)
	for _, text := range []string{"", "fox"} {
		var got []int64
		f := record.Filter{Text: text, Reverse: true, Limit: 3}
		for {
			p, err := s.Tasks(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, localIDs(p)...)
			if p.Next.IsZero() {
				break
			}
			f.After = p.Next
		}
		if !slices.Equal(got, ids) {
			t.Fatalf("text %q: reverse walk %v, want oldest first %v", text, got, ids)
		}
		// From the middle row upwards: only the newer ones, nearest first.
		mid, err := s.Task(ctx, ids[3])
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Tasks(ctx, record.Filter{Text: text, Reverse: true, After: record.Cursor{CreatedAt: mid.CreatedAt, LocalID: mid.LocalID}, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if want := ids[4:6]; !slices.Equal(localIDs(p), want) {
			t.Fatalf("text %q: rows above the middle %v, want %v", text, localIDs(p), want)
		}
	}
}

// The list shows how long the result URLs stay valid: the first to lapse.
func TestTasksCarryURLExpiry(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	seed(t, s, clk, []row{{api.OpText2Video, "svcq1", "fox", api.StateProcessing, 0, t0}})
	soon, later := t0.Add(time.Hour), t0.Add(24*time.Hour)
	if _, err := s.ApplyResult(ctx, "tk-000", record.Update{State: api.StateSuccess, Creations: []record.Creation{
		{Index: 0, URL: "https://x/a.mp4", URLExpiresAt: later},
		{Index: 1, URL: "https://x/b.mp4", URLExpiresAt: soon},
	}}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Tasks(ctx, record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Tasks[0].URLsExpireAt; !got.Equal(soon) {
		t.Fatalf("URLsExpireAt %v, want the earliest %v", got, soon)
	}
}

// Another process's commit is noticed; silence is silent, and so are the
// process's own writes: they reach the screens as the events that made them.
func TestWatchChangesSeesOtherProcesses(t *testing.T) {
	sqliteOnly(t) // PostgreSQL's changes come by notification
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	probe, err := s.NewChangeProbe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if moved, err := probe.Changed(ctx); err != nil || moved {
		t.Fatalf("a change reported while nothing was written (%v)", err)
	}
	if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"own"}`)}); err != nil {
		t.Fatal(err)
	}
	if moved, err := probe.Changed(ctx); err != nil || moved {
		t.Fatalf("the process's own write reported as another's (%v)", err)
	}
	if _, err := other.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"theirs"}`)}); err != nil {
		t.Fatal(err)
	}
	if moved, err := probe.Changed(ctx); err != nil || !moved {
		t.Fatalf("another process's commit went unnoticed (%v)", err)
	}

	// The loop around the probe reports it too. It takes its first look
	// when it starts, so another process keeps writing until it is seen.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changed := make(chan struct{}, 10)
	go s.WatchChanges(wctx, 5*time.Millisecond, record.ChangeWatch{Changed: func() { changed <- struct{}{} }})
	deadline := time.After(30 * time.Second) // a hang guard
	for {
		if _, err := other.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"again"}`)}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
			return
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("commits of another process went unnoticed by WatchChanges")
		}
	}
}

// The summaries of tasks by their service ids are the rows the list
// reads, in one query; an id history does not hold is left out.
func TestTaskSummariesAreTheListRows(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	seed(t, s, clk, []row{{api.OpText2Video, "svcq1", "fox", api.StateProcessing, 3, t0}, {api.OpText2Video, "svcq1", "owl", api.StateQueueing, 0, t0.Add(time.Minute)}})
	p, err := s.Tasks(ctx, record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.TaskSummaries(ctx, []string{"nope", "tk-000", "tk-001"})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]record.Task{}
	for _, g := range got {
		byID[g.TaskID] = g
	}
	if len(got) != 2 {
		t.Fatalf("%d summaries for two known ids and an unknown one: %+v", len(got), got)
	}
	for _, want := range p.Tasks {
		if !reflect.DeepEqual(byID[want.TaskID], want) {
			t.Fatalf("summary %+v\nlist row %+v", byID[want.TaskID], want)
		}
	}
	// More ids than one statement binds: read in parts, none lost.
	many := []string{"tk-000"}
	for i := range 1200 {
		many = append(many, fmt.Sprintf("gone-%d", i))
	}
	if got, err := s.TaskSummaries(ctx, append(many, "tk-001")); err != nil || len(got) != 2 {
		t.Fatalf("%d summaries of 1,202 ids (two known): %v", len(got), err)
	}
}
