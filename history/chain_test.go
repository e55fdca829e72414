package history

import (
	"context"
	"errors"
	"slices"
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

// A lineage is every task a task came from, through any number of sends,
// and every task made from it, each with its sources by field (a source
// beside the line, like a lip-sync's speech, is named, not followed).
func TestLineageFollowsEverySource(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	body := []byte(`{"model":"svcq1","prompt":"p"}`)
	send := func(op api.Operation, parents ...record.Parent) int64 {
		id, err := s.BeginSubmit(ctx, record.Intent{Operation: op, Body: body, Parents: parents})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	image := send(api.OpReference2Image)
	video := send(api.OpImg2Video, record.Parent{LocalID: image, Field: "images[0]"})
	speech := send(api.OpAudioTTS)
	sync := send(api.OpLipSync, record.Parent{LocalID: video, Field: "video_url"}, record.Parent{LocalID: speech, Field: "audio_url"})
	later := send(api.OpLipSync, record.Parent{LocalID: sync, Field: "video_url"})
	send(api.OpText2Video) // no kin
	got, err := s.Lineage(ctx, video)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	depth := map[int64]int{}
	for _, n := range got {
		ids = append(ids, n.LocalID)
		depth[n.LocalID] = n.Depth
	}
	if want := []int64{image, video, sync, later}; !slices.Equal(ids, want) {
		t.Fatalf("lineage of the video %v, want %v", ids, want)
	}
	if depth[image] != -1 || depth[video] != 0 || depth[sync] != 1 || depth[later] != 2 {
		t.Errorf("depths %v", depth)
	}
	for _, n := range got {
		if n.LocalID == sync && (len(n.From) != 2 || n.From[0].Field != "audio_url" || n.From[0].LocalID != speech || n.From[1].LocalID != video) {
			t.Errorf("the lip-sync's sources %+v; want the speech and the video", n.From)
		}
	}
	if alone, err := s.Lineage(ctx, speech+100); err != nil || len(alone) != 0 {
		t.Errorf("a task not in history: %v, %v", alone, err)
	}
}
