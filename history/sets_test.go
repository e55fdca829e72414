package history

import (
	"context"
	"errors"
	"testing"

	"clapper/api"
)

// A set's line is tied to its request as the request is recorded, and a
// line tied before is never recorded (so never sent) again; the same key
// finds the same set.
func TestSetLinesAreSentOnce(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	members := []SetMember{{Line: 1, Operation: api.OpText2Video}, {Line: 3, Operation: api.OpText2Video}}
	id, created, err := s.OpenSet(ctx, SetBatch, "sha", "b.jsonl", members)
	if err != nil || !created {
		t.Fatalf("open: %v %v", created, err)
	}
	body := []byte(`{"model":"svcq1","prompt":"p"}`)
	local, err := s.BeginSubmit(ctx, Intent{Operation: api.OpText2Video, Body: body, Set: &SetLine{SetID: id, Line: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginSubmit(ctx, Intent{Operation: api.OpText2Video, Body: body, Set: &SetLine{SetID: id, Line: 3}}); !errors.Is(err, ErrLineSent) {
		t.Fatalf("second send of line 3: %v", err)
	}
	again, created, err := s.OpenSet(ctx, SetBatch, "sha", "b.jsonl", nil)
	if err != nil || created || again != id {
		t.Fatalf("reopen: %d %v %v", again, created, err)
	}
	got, err := s.SetMembers(ctx, id)
	if err != nil || len(got) != 2 || got[0].LocalID != 0 || got[1].LocalID != local {
		t.Fatalf("members %+v, %v", got, err)
	}
	page, _ := s.Tasks(ctx, Filter{})
	if len(page.Tasks) != 1 {
		t.Fatalf("%d task rows; the refused second send must leave none", len(page.Tasks))
	}
}
