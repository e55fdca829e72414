package cli

import (
	"slices"
	"strings"
	"testing"
)

// clapper tag sets a task's tags and note; clapper history --search tag:
// then lists only the tasks with every tag named.
func TestTagThenHistoryByTag(t *testing.T) {
	data := t.TempDir()
	seedHistory(t, data, flagRows)
	for _, args := range [][]string{{"tag", "1", "Keeper", "client-a"}, {"tag", "4", "keeper"}} {
		if r := runCLIData(t, data, args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.err)
		}
	}
	r := runCLIData(t, data, "tag", "4", "--note", "best \x1b[31mseed\a so far")
	if r.code != 0 || r.out != "request 4: tags keeper; note: best seed so far\n" {
		t.Fatalf("tag --note: exit %d: %q %s", r.code, r.out, r.err)
	}
	for _, c := range []struct {
		search string
		want   []int64
	}{
		{"tag:keeper", []int64{4, 1}},
		{"tag:keeper tag:client-a", []int64{1}},
		{"tag:KEEPER fox op:reference2image", []int64{4}},
		{"tag:nobody", nil},
	} {
		if got := listed(t, data, "--search", c.search); !slices.Equal(got, c.want) {
			t.Errorf("history --search %q: listed %v, want %v", c.search, got, c.want)
		}
	}
	// With no tag it prints them; the table shows them before the prompt.
	if r := runCLIData(t, data, "tag", "1"); r.out != "request 1: tags client-a, keeper\n" {
		t.Errorf("tag 1 printed %q", r.out)
	}
	if r := runCLIData(t, data, "history"); !strings.Contains(r.out, "[client-a keeper] a red fox") {
		t.Errorf("the history table does not show the tags:\n%s", r.out)
	}
	if r := runCLIData(t, data, "tag", "1", "--clear"); r.code != 0 || r.out != "request 1: no tags\n" {
		t.Errorf("tag --clear: %+v", r)
	}
	if got := listed(t, data, "--search", "tag:client-a"); len(got) != 0 {
		t.Errorf("cleared tags still found: %v", got)
	}
}

// A tag that is no tag, a task that is not there, and a tag: word that
// cannot be a tag are refused with exit 2, naming what is allowed.
func TestTagRefusesBadInput(t *testing.T) {
	data := t.TempDir()
	seedHistory(t, data, flagRows)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tag", "1", "a/b"}, "letters, digits"},
		{[]string{"tag", "99", "x"}, "no request #99"},
		{[]string{"tag"}, "needs the # of a task"},
		{[]string{"tag", "1", "x", "--clear"}, "not both"},
		{[]string{"history", "--search", "tag:a/b"}, "tag:a/b"},
	} {
		r := runCLIData(t, data, c.args...)
		if r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, r.code, r.err, c.want)
		}
	}
}
