package history

import (
	"context"
	"errors"
	"testing"

	"clapper/api"
	"clapper/record"
)

// A request sent onward is tied to its parent as it is recorded; each
// task's detail reads both ends of the chain, and a parent history does not
// know is refused with nothing recorded.
func TestChainIsRecordedWithTheRequest(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	parent, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpReference2Image, Body: []byte(`{"model":"svcq2","prompt":"fox"}`)})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"model":"svcq1","images":["https://x/fox.png"]}`)
	var kids []int64
	for _, field := range []string{"images[0]", "images"} {
		op := api.OpImg2Video
		if field == "images" {
			op = api.OpReference2Video
		}
		id, err := s.BeginSubmit(ctx, record.Intent{Operation: op, Body: body, Parents: []record.Parent{{LocalID: parent, Field: field}}})
		if err != nil {
			t.Fatal(err)
		}
		kids = append(kids, id)
	}
	child, err := s.Task(ctx, kids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(child.From) != 1 || child.From[0].LocalID != parent || child.From[0].Field != "images[0]" || child.From[0].Operation != api.OpReference2Image || child.From[0].State != record.StateSubmitting {
		t.Fatalf("child's from: %+v", child.From)
	}
	if len(child.Onward) != 0 {
		t.Fatalf("child's onward: %+v", child.Onward)
	}
	p, err := s.Task(ctx, parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.From) != 0 || len(p.Onward) != 2 || p.Onward[0].LocalID != kids[0] || p.Onward[1].LocalID != kids[1] ||
		p.Onward[1].Operation != api.OpReference2Video || p.Onward[1].Field != "images" {
		t.Fatalf("parent's chain: from %+v onward %+v", p.From, p.Onward)
	}
	if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpImg2Video, Body: body, Parents: []record.Parent{{LocalID: 999, Field: "images[0]"}}}); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("an unknown parent: %v", err)
	}
	page, _ := s.Tasks(ctx, record.Filter{})
	if len(page.Tasks) != 3 {
		t.Fatalf("%d task rows; the refused send must leave none", len(page.Tasks))
	}
}
