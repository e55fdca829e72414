package history

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func TestParseTags(t *testing.T) {
	got, err := record.ParseTags("Keeper, client-A  v2.final,keeper")
	if err != nil || !slices.Equal(got, []string{"keeper", "client-a", "v2.final"}) {
		t.Fatalf("ParseTags: %q %v", got, err)
	}
	if got, err := record.ParseTags("  "); err != nil || len(got) != 0 {
		t.Fatalf("no tags: %q %v", got, err)
	}
	for _, bad := range []string{"tag:x", "-lead", "a/b", strings.Repeat("x", record.MaxTagLen+1), "bell\a"} {
		if _, err := record.ParseTags(bad); err == nil || !strings.Contains(err.Error(), "letters, digits") {
			t.Errorf("ParseTags(%q) = %v, want the rule named", bad, err)
		}
	}
	var words []string
	for i := range record.MaxTags + 1 {
		words = append(words, string(rune('a'+i)))
	}
	if _, err := record.ParseTags(strings.Join(words, " ")); err == nil || !strings.Contains(err.Error(), "at most 16") {
		t.Fatalf("too many tags: %v", err)
	}
}

func TestCleanNote(t *testing.T) {
	got, err := record.CleanNote("  keep\x1b[31m this\r one\nline two\a ")
	if err != nil || got != "keep this one\nline two" {
		t.Fatalf("CleanNote: %q %v", got, err)
	}
	if _, err := record.CleanNote(strings.Repeat("n", record.MaxNoteLen+1)); err == nil {
		t.Fatal("a note past the limit was kept")
	}
}

// Tags and a note set on a task are read back with it (in lists too), and
// tag: filters want every tag named.
func TestLabelsAndTagFilter(t *testing.T) {
	s, clk := newStore(t)
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	ids := seed(t, s, clk, []row{
		{op: api.OpText2Video, prompt: "one", state: api.StateSuccess, at: t0},
		{op: api.OpText2Video, prompt: "two", state: api.StateSuccess, at: t0.Add(time.Minute)},
		{op: api.OpText2Video, prompt: "three", state: api.StateFailed, at: t0.Add(2 * time.Minute)},
	})
	ctx := context.Background()
	if err := s.SetLabels(ctx, ids[0], []string{"keeper", "client"}, "the best\nso far"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLabels(ctx, ids[1], []string{"keeper"}, ""); err != nil {
		t.Fatal(err)
	}
	task, err := s.Task(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(task.Tags)
	if !slices.Equal(task.Tags, []string{"client", "keeper"}) || task.Note != "the best\nso far" {
		t.Fatalf("labels read back: %q %q", task.Tags, task.Note)
	}
	tagged := func(f record.Filter) []int64 {
		t.Helper()
		p, err := s.Tasks(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return localIDs(p)
	}
	if got := tagged(record.Filter{Tags: []string{"keeper"}}); !slices.Equal(got, []int64{ids[1], ids[0]}) {
		t.Fatalf("tag:keeper %v", got)
	}
	if got := tagged(record.Filter{Tags: []string{"keeper", "client"}}); !slices.Equal(got, []int64{ids[0]}) {
		t.Fatalf("tag:keeper tag:client %v", got)
	}
	if got := tagged(record.Filter{Tags: []string{"keeper"}, Text: "two"}); !slices.Equal(got, []int64{ids[1]}) {
		t.Fatalf("tag and words %v", got)
	}
	if n, err := s.Count(ctx, record.Filter{Tags: []string{"client"}, Text: "one"}); err != nil || n != 1 {
		t.Fatalf("count of tag and words %d %v", n, err)
	}
	if n, err := s.Count(ctx, record.Filter{Tags: []string{"client"}, Text: "two"}); err != nil || n != 0 {
		t.Fatalf("count of a tag and words no task has together %d %v", n, err)
	}
	if totals, err := s.TotalsMatching(ctx, record.Filter{Tags: []string{"keeper"}, Text: "two"}, time.Time{}, time.Time{}); err != nil || totals.Tasks() != 1 {
		t.Fatalf("totals of tag and words %+v %v", totals, err)
	}
	counts, err := s.CountsByState(ctx, record.Filter{Tags: []string{"keeper"}})
	if err != nil || counts[api.StateSuccess] != 2 || len(counts) != 1 {
		t.Fatalf("counts of tag:keeper %v %v", counts, err)
	}
	// Replacing: the tags given are the task's tags.
	if err := s.SetLabels(ctx, ids[0], nil, ""); err != nil {
		t.Fatal(err)
	}
	if got := tagged(record.Filter{Tags: []string{"client"}}); len(got) != 0 {
		t.Fatalf("removed tag still found: %v", got)
	}
	if err := s.SetLabels(ctx, 999, []string{"x"}, ""); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("labels of a missing task: %v", err)
	}
}

func TestParseSearchTags(t *testing.T) {
	f, err := record.ParseSearch("fox tag:Keeper tag:client state:success")
	if err != nil || !slices.Equal(f.Tags, []string{"keeper", "client"}) || f.Text != "fox" {
		t.Fatalf("ParseSearch: %+v %v", f, err)
	}
	if _, err := record.ParseSearch("tag:a/b"); err == nil || !strings.Contains(err.Error(), "tag:a/b") {
		t.Fatalf("a bad tag must be named: %v", err)
	}
}
