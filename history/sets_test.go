package history

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// A set's line is tied to its request as the request is recorded, and a
// line tied before is never recorded (so never sent) again; the same key
// finds the same set.
func TestSetLinesAreSentOnce(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	members := []record.SetMember{{Line: 1, Operation: api.OpText2Video}, {Line: 3, Operation: api.OpText2Video}}
	id, created, err := s.OpenSet(ctx, record.SetBatch, "sha", "b.jsonl", members)
	if err != nil || !created {
		t.Fatalf("open: %v %v", created, err)
	}
	body := []byte(`{"model":"svcq1","prompt":"p"}`)
	local, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: body, Set: &record.SetLine{SetID: id, Line: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: body, Set: &record.SetLine{SetID: id, Line: 3}}); !errors.Is(err, record.ErrLineSent) {
		t.Fatalf("second send of line 3: %v", err)
	}
	again, created, err := s.OpenSet(ctx, record.SetBatch, "sha", "b.jsonl", nil)
	if err != nil || created || again != id {
		t.Fatalf("reopen: %d %v %v", again, created, err)
	}
	got, err := s.SetMembers(ctx, id)
	if err != nil || len(got) != 2 || got[0].LocalID != 0 || got[1].LocalID != local {
		t.Fatalf("members %+v, %v", got, err)
	}
	page, _ := s.Tasks(ctx, record.Filter{})
	if len(page.Tasks) != 1 {
		t.Fatalf("%d task rows; the refused second send must leave none", len(page.Tasks))
	}
}

// The contact sheet's choices persist: one keeper per set, a discarded
// line hidden (and no longer the keeper) while its task stays; a task
// finds its set; the list is newest first with its counts.
func TestSetKeeperAndDiscard(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	members := []record.SetMember{{Line: 1, Operation: api.OpReference2Image, Label: "seed=1"}, {Line: 2, Operation: api.OpReference2Image, Label: "seed=2"}}
	first, _, err := s.OpenSet(ctx, record.SetVariations, "", "first", members)
	if err != nil {
		t.Fatal(err)
	}
	id, _, err := s.OpenSet(ctx, record.SetVariations, "", "second", members)
	if err != nil {
		t.Fatal(err)
	}
	local, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Body: []byte(`{}`), Set: &record.SetLine{SetID: id, Line: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.SetOfTask(ctx, local); err != nil || got != id {
		t.Fatalf("set of task #%d: %d, %v", local, got, err)
	}
	if _, err := s.SetOfTask(ctx, local+100); !errors.Is(err, record.ErrNoSet) {
		t.Fatalf("a task in no set: %v", err)
	}
	if err := s.KeepSetLine(ctx, id, 2); err != nil {
		t.Fatal(err)
	}
	sets, err := s.Sets(ctx, 10)
	if err != nil || len(sets) != 2 || sets[0].ID != id || sets[0].Keeper != 2 || sets[0].Lines != 2 || sets[0].Sent != 1 || sets[1].ID != first || sets[1].Keeper != 0 {
		t.Fatalf("sets %+v, %v", sets, err)
	}
	if err := s.DiscardSetLine(ctx, id, 2); err != nil {
		t.Fatal(err)
	}
	got, _ := s.SetMembers(ctx, id)
	if info, _ := s.Set(ctx, id); !got[1].Discarded || got[0].Discarded || info.Keeper != 0 {
		t.Fatalf("after discarding line 2: members %+v, keeper %d", got, info.Keeper)
	}
	if _, err := s.Task(ctx, local); err != nil {
		t.Fatalf("the discarded line's task is gone: %v", err)
	}
	if err := s.DiscardSetLine(ctx, id, 9); !errors.Is(err, record.ErrNoSet) {
		t.Fatalf("discarding a line the set has not: %v", err)
	}
	if err := s.RestoreSetLine(ctx, id, 2); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SetMembers(ctx, id); got[1].Discarded {
		t.Fatalf("line 2 restored is still discarded: %+v", got)
	}
	if err := s.RestoreSetLine(ctx, id, 2); !errors.Is(err, record.ErrNoSet) {
		t.Fatalf("restoring a line not discarded: %v", err)
	}
}

// A batch file run again after an edit: its lines that an earlier run of a
// batch sent with the same content are tied to that run's tasks (the
// newest of a content), whatever their place now; a changed line, a line
// never sent, and a variation set's line of the same content are not.
func TestRanBeforeTiesUnchangedLines(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	body := []byte(`{"model":"svcq1","prompt":"p"}`)
	first, _, err := s.OpenSet(ctx, record.SetBatch, "sha1", "b.jsonl", []record.SetMember{
		{Line: 1, Operation: api.OpText2Video, Content: "red"}, {Line: 2, Operation: api.OpText2Video, Content: "bleu"},
		{Line: 3, Operation: api.OpText2Video, Content: "green"}})
	if err != nil {
		t.Fatal(err)
	}
	sent := map[int]int64{}
	for _, line := range []int{1, 2} { // line 3 never ran
		if sent[line], err = s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: body, Set: &record.SetLine{SetID: first, Line: line}}); err != nil {
			t.Fatal(err)
		}
	}
	vars, _, err := s.OpenSet(ctx, record.SetVariations, "", "v", []record.SetMember{{Line: 1, Operation: api.OpText2Video, Content: "white"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: body, Set: &record.SetLine{SetID: vars, Line: 1}}); err != nil {
		t.Fatal(err)
	}
	edited, _, err := s.OpenSet(ctx, record.SetBatch, "sha2", "b.jsonl", []record.SetMember{
		{Line: 1, Operation: api.OpText2Video, Content: "white"}, {Line: 2, Operation: api.OpText2Video, Content: "red"},
		{Line: 3, Operation: api.OpText2Video, Content: "blue"}, {Line: 4, Operation: api.OpText2Video, Content: "green"}})
	if err != nil {
		t.Fatal(err)
	}
	tied, err := s.RanBefore(ctx, edited)
	if err != nil || len(tied) != 1 || tied[2] != sent[1] {
		t.Fatalf("tied %v, %v; want line 2 to the first run's line 1 (#%d)", tied, err, sent[1])
	}
	members, _ := s.SetMembers(ctx, edited)
	for _, m := range members {
		if (m.LocalID != 0) != (m.Line == 2) || m.Content == "" {
			t.Errorf("line %d: task #%d, content %q", m.Line, m.LocalID, m.Content)
		}
	}
	if again, err := s.RanBefore(ctx, edited); err != nil || len(again) != 0 {
		t.Errorf("a second look ties %v, %v", again, err)
	}
}

// A set dropped goes with its lines; the tasks its lines were tied to stay
// (in the sets that sent them).
func TestDropSetKeepsTheTasks(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	first, _, err := s.OpenSet(ctx, record.SetBatch, "a", "b.jsonl", []record.SetMember{{Line: 1, Operation: api.OpText2Video, Content: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	local, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{}`), Set: &record.SetLine{SetID: first, Line: 1}})
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := s.OpenSet(ctx, record.SetBatch, "b", "b.jsonl", []record.SetMember{{Line: 1, Operation: api.OpText2Video, Content: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RanBefore(ctx, again); err != nil {
		t.Fatal(err)
	}
	if err := s.DropSet(ctx, again); err != nil {
		t.Fatal(err)
	}
	sets, _ := s.Sets(ctx, 10)
	members, _ := s.SetMembers(ctx, first)
	if len(sets) != 1 || sets[0].ID != first || len(members) != 1 || members[0].LocalID != local {
		t.Fatalf("sets %+v, the first's lines %+v", sets, members)
	}
	if got, err := s.SetOfTask(ctx, local); err != nil || got != first {
		t.Errorf("the task's set: %d, %v", got, err)
	}
}

// set:N finds a set's tasks and is:keeper the versions kept on contact
// sheets, in the list, its counts and its totals alike.
func TestSearchBySetAndKeeper(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	members := []record.SetMember{{Line: 1, Operation: api.OpReference2Image, Label: "seed=1"}, {Line: 2, Operation: api.OpReference2Image, Label: "seed=2"}}
	set, _, err := s.OpenSet(ctx, record.SetVariations, "", "two", members)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int64
	for _, line := range []int{1, 2} {
		id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Body: []byte(`{"prompt":"a fox"}`), Set: &record.SetLine{SetID: set, Line: line}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, id)
	}
	if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Body: []byte(`{"prompt":"a fox"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.KeepSetLine(ctx, set, 2); err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string][]int64{fmt.Sprintf("set:%d", set): {lines[1], lines[0]}, "is:keeper": {lines[1]}, "fox is:keeper": {lines[1]}} {
		f, err := record.ParseSearch(query)
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.Tasks(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, task := range page.Tasks {
			got = append(got, task.LocalID)
		}
		n, nerr := s.Count(ctx, f)
		totals, terr := s.TotalsMatching(ctx, f, time.Time{}, time.Time{})
		sum := 0
		for _, c := range totals.States {
			sum += c
		}
		if !slices.Equal(got, want) || nerr != nil || n != len(want) || terr != nil || sum != len(want) {
			t.Errorf("%s: tasks %v (want %v), count %d %v, totals %v %v", query, got, want, n, nerr, totals.States, terr)
		}
	}
}

// A task read in a list says whether it is its set's keeper (★ on rows).
func TestTaskSaysItIsItsSetsKeeper(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	members := []record.SetMember{{Line: 1, Operation: api.OpReference2Image, Label: "seed=1"}, {Line: 2, Operation: api.OpReference2Image, Label: "seed=2"}}
	set, _, err := s.OpenSet(ctx, record.SetVariations, "", "two", members)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []int{1, 2} {
		if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Body: []byte(`{"prompt":"a fox"}`), Set: &record.SetLine{SetID: set, Line: line}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.KeepSetLine(ctx, set, 2); err != nil {
		t.Fatal(err)
	}
	page, err := s.Tasks(ctx, record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []bool
	for _, task := range page.Tasks {
		kept = append(kept, task.Keeper)
		if task.SetID != set {
			t.Errorf("task %d: set %d, want %d", task.LocalID, task.SetID, set)
		}
	}
	if !slices.Equal(kept, []bool{true, false}) { // newest first: line 2, then line 1
		t.Fatalf("keepers %v, want [true false]", kept)
	}
}
