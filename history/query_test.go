package history

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

type row struct {
	op      api.Operation
	model   string
	prompt  string
	state   string // final state; "" leaves it submitting
	credits int64
	at      time.Time
}

// seed records rows through the public API and returns their local ids in
// order.
func seed(t *testing.T, s *Store, clk *fakeClock, rows []row) []int64 {
	t.Helper()
	ctx := context.Background()
	var ids []int64
	for i, r := range rows {
		clk.Set(r.at)
		id, err := s.BeginSubmit(ctx, record.Intent{Operation: r.op, Model: r.model,
			Body: []byte(fmt.Sprintf(`{"prompt":%q}`, r.prompt))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		switch r.state {
		case "":
		case record.StateRejected:
			if err := s.MarkRejected(ctx, id, record.Rejection{Status: 400}); err != nil {
				t.Fatal(err)
			}
		default:
			tid := fmt.Sprintf("tk-%03d", i)
			if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: tid}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ApplyResult(ctx, tid, record.Update{State: r.state, Credits: r.credits}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ids
}

func localIDs(p record.Page) []int64 {
	var out []int64
	for _, task := range p.Tasks {
		out = append(out, task.LocalID)
	}
	return out
}

func TestTasksFilters(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	day := func(d int, h int) time.Time { return t0.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour) }
	ids := seed(t, s, clk, []row{
		{api.OpText2Video, "svcq1", "a red fox in snow", api.StateSuccess, 10, day(0, 0)},    // 0
		{api.OpText2Video, "svcq2", "Blue whale, 100% real_", api.StateFailed, 0, day(0, 1)}, // 1
		{api.OpImg2Video, "svcq2", "red balloon", api.StateProcessing, 0, day(1, 0)},         // 2
		{api.OpReference2Image, "svcq3", "ox cart", api.StateSuccess, 5, day(2, 0)},          // 3
		{api.OpAudioTTS, "", "hello fox", "", 0, day(3, 0)},                                  // 4 submitting
		{api.OpText2Video, "svcq1", "rejected idea", record.StateRejected, 0, day(3, 1)},     // 5
		{api.OpLipSync, "", "日本語のプロンプト", api.StateSuccess, 7, day(4, 0)},                     // 6
		{api.OpImg2Video, "svcq2", `quote "this" please`, api.StateQueueing, 0, day(4, 1)},   // 7
	})
	pick := func(is ...int) []int64 {
		var out []int64
		for _, i := range slices.Backward(is) {
			out = append(out, ids[i])
		}
		return out
	}
	for _, c := range []struct {
		name string
		f    record.Filter
		want []int64 // newest first
	}{
		{"all", record.Filter{}, pick(0, 1, 2, 3, 4, 5, 6, 7)},
		{"text word", record.Filter{Text: "red"}, pick(0, 2)},
		{"text case-insensitive", record.Filter{Text: "RED FOX"}, pick(0)},
		{"text short word falls back to LIKE", record.Filter{Text: "ox"}, pick(0, 3, 4)},
		{"text short and long words", record.Filter{Text: "ox cart"}, pick(3)},
		{"text matches task id", record.Filter{Text: "tk-002"}, pick(2)},
		{"text matches model", record.Filter{Text: "svcq3"}, pick(3)},
		{"text matches operation", record.Filter{Text: "lip-sync"}, pick(6)},
		{"text LIKE wildcards are literal", record.Filter{Text: "%"}, pick(1)},
		{"text underscore literal", record.Filter{Text: "l_"}, pick(1)},
		{"text with a double quote", record.Filter{Text: `"this"`}, pick(7)},
		{"text non-Latin", record.Filter{Text: "プロンプト"}, pick(6)},
		{"text no match", record.Filter{Text: "zebra"}, nil},
		{"state", record.Filter{States: []string{api.StateSuccess}}, pick(0, 3, 6)},
		{"local states", record.Filter{States: []string{record.StateSubmitting, record.StateRejected}}, pick(4, 5)},
		{"operation", record.Filter{Operations: []api.Operation{api.OpImg2Video}}, pick(2, 7)},
		{"model", record.Filter{Models: []string{"svcq1", "svcq3"}}, pick(0, 3, 5)},
		{"date range from", record.Filter{From: day(3, 0)}, pick(4, 5, 6, 7)},
		{"date range half-open", record.Filter{From: day(1, 0), To: day(3, 0)}, pick(2, 3)},
		{"combined", record.Filter{Text: "red", Models: []string{"svcq2"}, States: []string{api.StateProcessing, api.StateSuccess}}, pick(2)},
		{"combined empty", record.Filter{Operations: []api.Operation{api.OpText2Video}, States: []string{api.StateQueueing}}, nil},
		{"text from a date", record.Filter{Text: "fox", From: day(3, 0)}, pick(4)},
		{"text to a date", record.Filter{Text: "red", To: day(1, 0)}, pick(0)},
		{"text within dates", record.Filter{Text: "red", From: day(0, 1), To: day(2, 0)}, pick(2)},
		{"text after every task", record.Filter{Text: "fox", From: day(9, 0)}, nil},
		{"text before every task", record.Filter{Text: "fox", To: day(-1, 0)}, nil},
		{"everything", record.Filter{Text: "fox", Operations: []api.Operation{api.OpText2Video}, Models: []string{"svcq1"},
			States: []string{api.StateSuccess}, From: day(0, 0), To: day(0, 1)}, pick(0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := s.Tasks(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := localIDs(p); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if !p.Next.IsZero() {
				t.Errorf("a single page has a next cursor %+v", p.Next)
			}
			counts, err := s.CountsByState(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			for _, task := range p.Tasks {
				want[task.State]++
			}
			if !maps.Equal(counts, want) {
				t.Errorf("counts %v, want %v", counts, want)
			}
			if n, err := s.Count(ctx, c.f); err != nil || n != len(p.Tasks) {
				t.Errorf("Count %d (%v), want %d", n, err, len(p.Tasks))
			}
			totals, err := s.TotalsMatching(ctx, c.f, time.Time{}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			var credits int64
			for _, task := range p.Tasks {
				credits += task.Credits
			}
			if !maps.Equal(totals.States, want) || totals.Credits != credits || totals.Tasks() != len(p.Tasks) {
				t.Errorf("totals %+v, want %v and %d credits", totals, want, credits)
			}
		})
	}
}

func TestTasksSummaryOmitsDetail(t *testing.T) {
	s, clk := newStore(t)
	seed(t, s, clk, []row{{api.OpText2Video, "m", "p", api.StateSuccess, 1, t0}})
	p, err := s.Tasks(context.Background(), record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	task := p.Tasks[0]
	if task.Request != nil || task.Events != nil || task.Prompt != "p" || task.TaskID == "" || task.Credits != 1 {
		t.Errorf("summary %+v", task)
	}
}

// Paging walks every row exactly once even with many rows in the same
// millisecond, and rows added while paging do not shift the pages; on every
// query path (plain, search index, LIKE, filtered).
func TestTasksKeysetPagination(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	var rows []row
	for i := range 23 {
		// Groups of five share a timestamp; every third task failed.
		state := api.StateSuccess
		if i%3 == 0 {
			state = api.StateFailed
		}
		rows = append(rows, row{api.OpText2Video, "m", fmt.Sprint("scene ", i), state, 1, t0.Add(time.Duration(i/5) * time.Millisecond)})
	}
	ids := seed(t, s, clk, rows)
	newestFirst := func(keep func(i int) bool) []int64 {
		var out []int64
		for i := len(ids) - 1; i >= 0; i-- {
			if keep(i) {
				out = append(out, ids[i])
			}
		}
		return out
	}
	all := newestFirst(func(int) bool { return true })
	failed := newestFirst(func(i int) bool { return i%3 == 0 })

	for _, c := range []struct {
		name string
		f    record.Filter
		want []int64
	}{
		{"plain", record.Filter{}, all},
		{"search index", record.Filter{Text: "scene"}, all},
		{"like", record.Filter{Text: "ne"}, all},
		{"state", record.Filter{States: []string{api.StateFailed}}, failed},
		{"search and state", record.Filter{Text: "scene", States: []string{api.StateFailed}}, failed},
	} {
		for _, limit := range []int{1, 4, 5, 7, 23, 50} {
			t.Run(fmt.Sprintf("%s limit %d", c.name, limit), func(t *testing.T) {
				var got []int64
				f := c.f
				f.Limit = limit
				for pages := 0; ; pages++ {
					if pages > 1000 {
						t.Fatal("paging does not end")
					}
					p, err := s.Tasks(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					if len(p.Tasks) > limit {
						t.Fatalf("page of %d, limit %d", len(p.Tasks), limit)
					}
					got = append(got, localIDs(p)...)
					if p.Next.IsZero() {
						break
					}
					if len(p.Tasks) != limit {
						t.Fatalf("short page %d with a next cursor", len(p.Tasks))
					}
					// Newer rows arriving between pages must not disturb the walk.
					clk.Set(t0.Add(time.Hour))
					if _, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(`{"prompt":"scene new"}`)}); err != nil {
						t.Fatal(err)
					}
					f.After = p.Next
				}
				got = slices.DeleteFunc(got, func(id int64) bool { return id > ids[len(ids)-1] })
				if !slices.Equal(got, c.want) {
					t.Errorf("walk %v\nwant %v", got, c.want)
				}
			})
		}
	}
}

// A clock that steps back must not make a new task sort below older ones,
// whichever query path lists them.
func TestCreatedAtNeverDecreases(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	first := mustBegin(t, s, `{"prompt":"first light"}`)
	clk.Set(t0.Add(-time.Hour))
	second := mustBegin(t, s, `{"prompt":"second light"}`)
	a, _ := s.Task(ctx, first)
	b, _ := s.Task(ctx, second)
	if b.CreatedAt.Before(a.CreatedAt) {
		t.Errorf("second task created %v before first %v", b.CreatedAt, a.CreatedAt)
	}
	if !b.Events[0].At.Equal(clk.Now()) {
		t.Errorf("the event keeps the clock's time, got %v", b.Events[0].At)
	}
	for _, f := range []record.Filter{{}, {Text: "light"}} {
		p, err := s.Tasks(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if got := localIDs(p); !slices.Equal(got, []int64{second, first}) {
			t.Errorf("%+v: order %v", f, got)
		}
	}
}

// The trigger-kept counts agree with counting the rows, through inserts,
// state changes and every kind of filter they answer.
func TestTaskCountsMatchRows(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	ops := []api.Operation{api.OpText2Video, api.OpImg2Video, api.OpAudioTTS}
	models := []string{"svcq1", "svcq2", ""}
	states := []string{"", record.StateRejected, api.StateQueueing, api.StateSuccess, api.StateFailed}
	var rows []row
	for i := range 60 {
		rows = append(rows, row{ops[i%3], models[(i/3)%3], "p", states[(i/9)%5], 1, t0.Add(time.Duration(i) * time.Second)})
	}
	ids := seed(t, s, clk, rows)
	// More movement: abandon some, resubmit a rejected one.
	for _, id := range ids[:5] {
		if err := s.Abandon(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Resubmit(ctx, ids[9]); err != nil {
		t.Fatal(err)
	}
	for _, f := range []record.Filter{
		{},
		{States: []string{api.StateSuccess, record.StateAbandoned}},
		{Operations: []api.Operation{api.OpImg2Video}},
		{Models: []string{""}},
		{Operations: []api.Operation{api.OpText2Video, api.OpAudioTTS}, Models: []string{"svcq2"}, States: []string{api.StateFailed}},
		{States: []string{"no such state"}},
	} {
		fast, err := s.CountsByState(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		// A From before every task changes nothing but forces counting rows.
		scan := f
		scan.From = time.Unix(0, 0)
		slow, err := s.CountsByState(ctx, scan)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(fast, slow) {
			t.Errorf("%+v: kept counts %v, rows say %v", f, fast, slow)
		}
	}
	if all, _ := s.CountsByState(ctx, record.Filter{}); all[record.StateAbandoned] != 5 || all[record.StateSubmitting] != 14 || all[record.StateRejected] != 14 {
		t.Errorf("counts %v", all)
	}
}

func TestTasksDefaultPageSize(t *testing.T) {
	s, clk := newStore(t)
	var rows []row
	for i := range record.DefaultPageSize + 1 {
		rows = append(rows, row{api.OpText2Video, "m", "p", "", 0, t0.Add(time.Duration(i) * time.Second)})
	}
	seed(t, s, clk, rows)
	p, err := s.Tasks(context.Background(), record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != record.DefaultPageSize || p.Next.IsZero() {
		t.Errorf("%d tasks, next %+v", len(p.Tasks), p.Next)
	}
	last := p.Tasks[len(p.Tasks)-1]
	if p.Next != (record.Cursor{CreatedAt: last.CreatedAt, LocalID: last.LocalID}) {
		t.Errorf("next %+v is not the last row", p.Next)
	}
}

func TestCreditsByDay(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	// Paris: a day starts at 23:00 UTC in winter, and 2025-03-30 is 23 h long.
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	at := func(d, h, m int) time.Time { return time.Date(2025, 3, d, h, m, 0, 0, paris) }
	seed(t, s, clk, []row{
		{api.OpText2Video, "a", "", api.StateSuccess, 10, at(29, 0, 5)},
		{api.OpText2Video, "a", "", api.StateSuccess, 20, at(29, 23, 59)},
		{api.OpText2Video, "b", "", api.StateFailed, 0, at(30, 0, 0)},
		{api.OpText2Video, "b", "", api.StateSuccess, 7, at(30, 23, 30)},    // after the DST jump
		{api.OpText2Video, "b", "", record.StateRejected, 0, at(31, 12, 0)}, // never accepted: no task
		{api.OpText2Video, "b", "", api.StateSuccess, 5, at(1+31, 0, 0)},    // April 1st, outside the range
	})
	got, err := s.CreditsByDay(ctx, at(28, 12, 0), at(31, 23, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []record.DayCredits{
		{Day: at(28, 0, 0), Credits: 0, Tasks: 0},
		{Day: at(29, 0, 0), Credits: 30, Tasks: 2},
		{Day: at(30, 0, 0), Credits: 7, Tasks: 2},
		{Day: at(31, 0, 0), Credits: 0, Tasks: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if !got[i].Day.Equal(want[i].Day) || got[i].Credits != want[i].Credits || got[i].Tasks != want[i].Tasks {
			t.Errorf("day %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := s.CreditsByDay(ctx, at(2, 0, 0), at(1, 0, 0)); err == nil {
		t.Error("accepted to < from")
	}
}

func TestCreditsByModel(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	seed(t, s, clk, []row{
		{api.OpText2Video, "svcq1", "", api.StateSuccess, 10, t0},
		{api.OpText2Video, "svcq2", "", api.StateSuccess, 30, t0.Add(time.Hour)},
		{api.OpText2Video, "svcq1", "", api.StateSuccess, 25, t0.Add(2 * time.Hour)},
		{api.OpLipSync, "", "", api.StateSuccess, 3, t0.Add(3 * time.Hour)},
		{api.OpText2Video, "svcq3", "", record.StateRejected, 0, t0.Add(4 * time.Hour)},
		{api.OpText2Video, "svcq2", "", api.StateSuccess, 100, t0.Add(48 * time.Hour)},
	})
	for _, c := range []struct {
		name     string
		from, to time.Time
		want     []record.ModelCredits
	}{
		{"bounded", t0, t0.Add(24 * time.Hour), []record.ModelCredits{{Model: "svcq1", Credits: 35, Tasks: 2}, {Model: "svcq2", Credits: 30, Tasks: 1}, {Model: "lip-sync", Credits: 3, Tasks: 1}}},
		{"open", time.Time{}, time.Time{}, []record.ModelCredits{{Model: "svcq2", Credits: 130, Tasks: 2}, {Model: "svcq1", Credits: 35, Tasks: 2}, {Model: "lip-sync", Credits: 3, Tasks: 1}}},
		{"to only excludes its instant", time.Time{}, t0.Add(time.Hour), []record.ModelCredits{{Model: "svcq1", Credits: 10, Tasks: 1}}},
	} {
		got, err := s.CreditsByModel(ctx, c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// A word too short for the search index is matched by a scan; its totals
// and charts scan the narrow tasks_words index (0020, 0030), not the
// table's whole rows, alone or with a state; a state alone searches it.
func TestShortWordTotalsScanTheNarrowIndex(t *testing.T) {
	sqliteOnly(t)
	s, _ := newStore(t)
	ctx := context.Background()
	from, to := t0.AddDate(0, 0, -14), t0
	for _, f := range []record.Filter{
		{Text: "ox"},
		{Text: "a", States: []string{api.StateSuccess}},
		{States: []string{api.StateFailed}},
	} {
		_, starts := calendarDays(from, to)
		query, args := s.totalsQuery(f, from, to, starts)
		rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		// The plan's one read of the tasks, beside its grouping.
		var reads []string
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN") || strings.HasPrefix(step, "SEARCH") {
				reads = append(reads, step)
			}
		}
		if len(reads) != 1 || !strings.Contains(reads[0], "COVERING INDEX tasks_words") {
			t.Errorf("%+v: plan %q, want one read of the covering index tasks_words", f, plan)
		}
	}
}
