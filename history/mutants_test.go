package history

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

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

// A history file of a newer clapper is refused with the one message the
// user reads, in full.
func TestNewerSchemaIsRefusedInOneSentence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	db := rawDB(t, path)
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations)+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(path)
	want := fmt.Sprintf("history: database schema version %d is newer than this clapper knows (%d); upgrade clapper or use another history",
		len(migrations)+1, len(migrations))
	if err == nil || err.Error() != want {
		t.Errorf("Open: %v\nwant %s", err, want)
	}
}

// The caps at their bounds, as the history holds a request to them: a cap
// of 0 is no cap; a request of unknown price is refused once spending has
// reached the cap exactly, and one that brings it to the cap exactly is
// recorded; a set's hold of nothing (its run ended, or nothing known to
// hold) is never refused.
func TestCapsAtTheirBounds(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	since := t0.Add(-time.Hour)
	send := func(reserve int64, caps ...record.Cap) error {
		_, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"p"}`), Reserve: reserve, Caps: caps})
		return err
	}
	if err := send(30, record.Cap{Limit: 0, Since: since, Known: true}); err != nil {
		t.Fatalf("a cap of 0 refused a send: %v", err)
	}
	if err := send(20, record.Cap{Limit: 50, Since: since, Known: true}); err != nil {
		t.Fatalf("a send bringing spending to the cap exactly (30 + 20 of 50): %v", err)
	}
	var ce *record.CapExceeded
	if err := send(0, record.Cap{Limit: 50, Since: since}); !errors.As(err, &ce) || ce.Spent != 50 {
		t.Fatalf("a send of unknown price at a reached cap: %v", err)
	}
	if err := send(0, record.Cap{Limit: 51, Since: since}); err != nil {
		t.Fatalf("a send of unknown price a credit under the cap: %v", err)
	}
	id, _, err := s.OpenSet(ctx, record.SetBatch, "sha", "b.jsonl", []record.SetMember{{Line: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReserveSet(ctx, id, 0, []record.Cap{{Limit: 50, Since: since}}); err != nil {
		t.Errorf("a hold of nothing at a reached cap: %v", err)
	}
}

// On a team's database a machine that stops without holding the poller's
// lease tells nobody the poller resigned (each would try to claim a lease
// that is held); the holder's resignation is told at once.
func TestTeamReleaseByANonHolderFreesNothing(t *testing.T) {
	teamOnly(t)
	open := sharedDatabase(t)
	a := open(WithMachine("a"), WithSender("acct-1", "ann@a"))
	b := open(WithMachine("b"), WithSender("acct-1", "bob@b"))
	ctx := context.Background()
	if h, err := a.ClaimPoller(ctx, "a/1/x", time.Now(), time.Minute, nil); err != nil || h != "a/1/x" {
		t.Fatalf("a's claim: %q %v", h, err)
	}
	_, freed := watch(t, a)
	if err := b.ReleasePoller(ctx, "b/1/y"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-freed:
		t.Fatal("b, holding no lease, told the team the poller resigned")
	case <-time.After(500 * time.Millisecond): // a notification arrives in milliseconds
	}
	if err := a.ReleasePoller(ctx, "a/1/x"); err != nil {
		t.Fatal(err)
	}
	expect(t, freed, "a's resignation")
}

// A dated search with no span to chart (one open at its start) still has
// its totals, on both databases: PostgreSQL's one-pass statement, for a
// search within the span's dates, is for a span of days only.
func TestDatedSearchTotalsWithNoSpanToChart(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	day := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	seed(t, s, clk, []row{
		{api.OpText2Video, "svcq1", "a red fox", api.StateSuccess, 10, day(0)},
		{api.OpText2Video, "svcq2", "red sky", api.StateSuccess, 20, day(1)},
		{api.OpText2Video, "svcq2", "red sea", api.StateSuccess, 7, day(5)},
	})
	f := record.Filter{Text: "red", From: day(0), To: day(3)}
	got, err := s.TotalsMatching(ctx, f, time.Time{}, day(9))
	if err != nil || got.Tasks() != 2 || got.Credits != 30 || got.ByDay != nil {
		t.Errorf("totals of a dated search, no span: %+v, %v; want 2 tasks, 30 credits, no charts", got, err)
	}
}

// A prompt search holds to its limit when the starred prompts alone fill
// it: the limit's starred ones, and none of the rest.
func TestStarredPromptsFillingTheLimit(t *testing.T) {
	s, clk := newStore(t)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	seed(t, s, clk, []row{
		{op: api.OpText2Video, prompt: "first star", at: at},
		{op: api.OpText2Video, prompt: "second star", at: at.Add(time.Minute)},
		{op: api.OpText2Video, prompt: "not starred", at: at.Add(2 * time.Minute)},
	})
	ctx := context.Background()
	for _, text := range []string{"first star", "second star"} {
		if err := s.StarPrompt(ctx, text, true, at); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := searchPrompts(t, s, record.PromptQuery{Limit: 2}), []string{"★second star", "★first star"}; !slices.Equal(got, want) {
		t.Errorf("limit 2 with two starred: %q, want %q", got, want)
	}
}

// A set's row, as the contact sheet and the sets list read it: its kind,
// name, creation time and line counts; a set that is not there is
// ErrNoSet.
func TestSetReadsItsRow(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	id, _, err := s.OpenSet(ctx, record.SetVariations, "", "seeds of a fox", []record.SetMember{{Line: 1}, {Line: 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := record.SetInfo{ID: id, Kind: record.SetVariations, Name: "seeds of a fox", CreatedAt: clk.Now(), Lines: 2}
	if got, err := s.Set(ctx, id); err != nil || got != want {
		t.Errorf("Set = %+v, %v; want %+v", got, err, want)
	}
	if got, err := s.Sets(ctx, 10); err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("Sets = %+v, %v; want [%+v]", got, err, want)
	}
	if _, err := s.Set(ctx, id+1); !errors.Is(err, record.ErrNoSet) {
		t.Errorf("a set not there: %v", err)
	}
}

// A search's chart by day in a zone whose clocks go back: the 25-hour day
// (Paris, 2025-10-26) holds what was created in its last hour, not the
// next day.
func TestChartByDayHoldsTheLastHourOfALongDay(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	at := func(d, h, m int) time.Time { return time.Date(2025, 10, d, h, m, 0, 0, paris) }
	seed(t, s, clk, []row{
		{api.OpText2Video, "svcq1", "a red fox", api.StateSuccess, 9, at(26, 23, 30)}, // in the 25th hour
		{api.OpText2Video, "svcq1", "a red kite", api.StateSuccess, 4, at(27, 12, 0)},
	})
	got, err := s.TotalsMatching(ctx, record.Filter{Text: "red"}, at(25, 0, 0), at(28, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var days []string
	for _, d := range got.ByDay {
		days = append(days, fmt.Sprintf("%s %d", d.Day.Format(time.DateOnly), d.Credits))
	}
	if want := []string{"2025-10-25 0", "2025-10-26 9", "2025-10-27 4"}; !slices.Equal(days, want) {
		t.Errorf("by day %q, want %q", days, want)
	}
}
