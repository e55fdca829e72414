package history

import (
	"context"
	"slices"
	"testing"

	"clapper/api"
	"clapper/record"
)

// A statement as PostgreSQL takes it: each ? is the next $N, a numbered
// ?N (a parameter used twice, as the downloads' and prompts' statements
// use them) is $N whatever its digits, 0 and 9 included, and a ? inside
// quotes is text. The statements end in a parameter as often as not.
func TestPostgresNumbersTheParameters(t *testing.T) {
	d := &dialect{postgres: true}
	for _, c := range []struct{ in, want string }{
		{`UPDATE downloads SET status = ?1, bytes = ?3 WHERE id = ?7 AND (?8 = '' OR owner = ?8)`,
			`UPDATE downloads SET status = $1, bytes = $3 WHERE id = $7 AND ($8 = '' OR owner = $8)`},
		{`SELECT id FROM tasks WHERE a = ?10 AND b = ?9 AND c = ?20`, `SELECT id FROM tasks WHERE a = $10 AND b = $9 AND c = $20`},
		{`SELECT '?', x FROM tasks WHERE note = 'a?b' AND a = ? AND b = ?`, `SELECT '?', x FROM tasks WHERE note = 'a?b' AND a = $1 AND b = $2`},
		{`SELECT x FROM tasks WHERE a = ?`, `SELECT x FROM tasks WHERE a = $1`},
		{`SELECT x FROM tasks WHERE a = ?2`, `SELECT x FROM tasks WHERE a = $2`},
	} {
		if got := d.sql(c.in); got != c.want {
			t.Errorf("%s\n as %s\n want %s", c.in, got, c.want)
		}
	}
}

// A lineage lists its tasks by depth, then in the order they were sent: a
// second video made later from the same image comes before the lip-sync
// made earlier from the first video, one generation below.
func TestLineageListsByDepthThenBySending(t *testing.T) {
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
	sync := send(api.OpLipSync, record.Parent{LocalID: video, Field: "video_url"})
	second := send(api.OpImg2Video, record.Parent{LocalID: image, Field: "images[0]"})
	got, err := s.Lineage(ctx, image)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, n := range got {
		ids = append(ids, n.LocalID)
	}
	if want := []int64{image, video, second, sync}; !slices.Equal(ids, want) {
		t.Errorf("lineage of the image %v, want %v (the image, its two videos, the lip-sync)", ids, want)
	}
}
