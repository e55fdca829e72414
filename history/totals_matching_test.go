package history

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// The totals of a search (the History page's, issue 32) count and sum the
// tasks it matches, and its charts are the credits by day and by model of
// those in the span charted, as its list holds them: words (long, through
// the search index, and short), tags, and every other condition, over a
// span whose days are all listed, in the span's zone; one read has both
// (issue 34, item 4).
func TestTotalsMatchingChartTheSearch(t *testing.T) {
	s, clk := newStore(t)
	ctx := context.Background()
	day := func(d int, h int) time.Time { return t0.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour) }
	ids := seed(t, s, clk, []row{
		{api.OpText2Video, "svcq1", "a red fox in snow", api.StateSuccess, 10, day(0, 0)},
		{api.OpText2Video, "svcq2", "red sky", api.StateSuccess, 20, day(0, 2)},
		{api.OpImg2Video, "svcq2", "red balloon", api.StateSuccess, 7, day(2, 0)},
		{api.OpReference2Image, "svcq3", "ox cart", api.StateSuccess, 5, day(2, 1)},
		{api.OpLipSync, "", "a red mouth", api.StateSuccess, 3, day(3, 0)},
		{api.OpText2Video, "svcq1", "red idea", record.StateRejected, 0, day(3, 1)},
		{api.OpAudioTTS, "", "red words", "", 0, day(3, 2)},
	})
	if err := s.SetLabels(ctx, ids[2], []string{"client"}, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLabels(ctx, ids[3], []string{"client"}, ""); err != nil {
		t.Fatal(err)
	}
	india := time.FixedZone("IST", 5*3600+1800) // days that start inside a UTC hour
	for _, span := range [][2]time.Time{
		{time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 9, 0, 0, 0, 0, time.UTC)},
		// Part of the matches: the totals count them all, the charts these.
		{time.Date(2025, 3, 4, 16, 0, 0, 0, india), time.Date(2025, 3, 7, 16, 30, 0, 0, india)},
	} {
		from, to := span[0], span[1]
		loc := from.Location()
		midnight := func(at time.Time) time.Time {
			y, m, d := at.In(loc).Date()
			return time.Date(y, m, d, 0, 0, 0, 0, loc)
		}
		for _, f := range []record.Filter{
			{Text: "red"}, {Text: "ox"}, {Tags: []string{"client"}}, {Text: "red", Models: []string{"svcq2"}},
			{Operations: []api.Operation{api.OpLipSync}}, {Text: "zebra"},
			// A search within the span's dates (one pass on PostgreSQL),
			// and one whose dates pass it (totals and charts apart).
			{Text: "red", From: from, To: to}, {Text: "re", From: from.Add(time.Hour), To: to.Add(-time.Hour)},
			{Text: "red", From: from.AddDate(0, 0, -1), To: to}, {States: []string{api.StateSuccess}, From: from, To: to.AddDate(0, 0, 1)},
		} {
			got, err := s.TotalsMatching(ctx, f, from, to)
			if err != nil {
				t.Fatalf("%+v: %v", f, err)
			}
			page, err := s.Tasks(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			wantStates, wantCredits := map[string]int{}, int64(0)
			wantDays, wantTasks := map[time.Time]int64{}, map[time.Time]int{}
			wantModels := map[string]int64{}
			for _, task := range page.Tasks {
				wantStates[task.State]++
				wantCredits += task.Credits
				if task.TaskID == "" || task.CreatedAt.Before(from) || !task.CreatedAt.Before(to) {
					continue // never taken by the service (no spending), or not charted
				}
				wantDays[midnight(task.CreatedAt)] += task.Credits
				wantTasks[midnight(task.CreatedAt)]++
				name := task.Model
				if name == "" {
					name = string(task.Operation)
				}
				wantModels[name] += task.Credits
			}
			if !maps.Equal(got.States, wantStates) || got.Credits != wantCredits {
				t.Errorf("%+v: totals %v and %d credits, want %v and %d", f, got.States, got.Credits, wantStates, wantCredits)
			}
			if want := int(to.Sub(midnight(from)).Hours()+23) / 24; len(got.ByDay) != want {
				t.Fatalf("%+v: %d days, want every day of the span (%d)", f, len(got.ByDay), want)
			}
			for i, d := range got.ByDay {
				if !d.Day.Equal(midnight(from).AddDate(0, 0, i)) || d.Day.Location() != loc {
					t.Errorf("%+v: day %d is %v", f, i, d.Day)
				}
				if d.Credits != wantDays[d.Day] || d.Tasks != wantTasks[d.Day] {
					t.Errorf("%+v: %s has %d credits of %d tasks, want %d of %d", f, d.Day.Format("Jan 2"), d.Credits, d.Tasks, wantDays[d.Day], wantTasks[d.Day])
				}
			}
			models := map[string]int64{}
			for _, m := range got.ByModel {
				models[m.Model] = m.Credits
			}
			if !maps.Equal(models, wantModels) {
				t.Errorf("%+v: models %v, want %v", f, models, wantModels)
			}
			if !slices.IsSortedFunc(got.ByModel, func(a, b record.ModelCredits) int { return int(b.Credits - a.Credits) }) {
				t.Errorf("%+v: models not by credits, most first: %v", f, got.ByModel)
			}
		}
	}
	// No span (none, one open at its start, one that ends before it
	// starts): the totals alone.
	for _, span := range [][2]time.Time{{}, {{}, day(9, 0)}, {day(3, 0), day(1, 0)}} {
		if got, err := s.TotalsMatching(ctx, record.Filter{Text: "red"}, span[0], span[1]); err != nil || got.Tasks() != 6 || got.ByDay != nil || got.ByModel != nil {
			t.Errorf("no span (%v to %v): %+v, %v; want 6 tasks and no charts", span[0], span[1], got, err)
		}
	}
}
