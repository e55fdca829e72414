package history

import (
	"context"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// The charts of a search (the History page's, issue 32) are the credits by
// day and by model of the tasks it matches, as its list holds them: words
// (long, through the search index, and short), tags, and every other
// condition, over a span whose days are all listed.
func TestChartsMatchingFollowTheSearch(t *testing.T) {
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
	from, to := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 9, 0, 0, 0, 0, time.UTC)
	for _, f := range []record.Filter{
		{Text: "red"}, {Text: "ox"}, {Tags: []string{"client"}}, {Text: "red", Models: []string{"svcq2"}},
		{Operations: []api.Operation{api.OpLipSync}}, {Text: "zebra"},
	} {
		days, models, err := s.ChartsMatching(ctx, f, from, to)
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		g := f
		g.From, g.To = from, to
		page, err := s.Tasks(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		wantDays, wantTasks := map[time.Time]int64{}, map[time.Time]int{}
		wantModels := map[string]int64{}
		for _, task := range page.Tasks {
			if task.TaskID == "" {
				continue // never taken by the service: no spending
			}
			y, m, d := task.CreatedAt.In(time.UTC).Date()
			wantDays[time.Date(y, m, d, 0, 0, 0, 0, time.UTC)] += task.Credits
			wantTasks[time.Date(y, m, d, 0, 0, 0, 0, time.UTC)]++
			name := task.Model
			if name == "" {
				name = string(task.Operation)
			}
			wantModels[name] += task.Credits
		}
		if len(days) != 6 {
			t.Fatalf("%+v: %d days, want every day of the span (6)", f, len(days))
		}
		for _, d := range days {
			if d.Credits != wantDays[d.Day] || d.Tasks != wantTasks[d.Day] {
				t.Errorf("%+v: %s has %d credits of %d tasks, want %d of %d", f, d.Day.Format("Jan 2"), d.Credits, d.Tasks, wantDays[d.Day], wantTasks[d.Day])
			}
		}
		got := map[string]int64{}
		for _, m := range models {
			got[m.Model] = m.Credits
		}
		if len(got) != len(wantModels) {
			t.Errorf("%+v: models %v, want %v", f, got, wantModels)
		}
		for m, c := range wantModels {
			if got[m] != c {
				t.Errorf("%+v: models %v, want %v", f, got, wantModels)
			}
		}
		if !slices.IsSortedFunc(models, func(a, b record.ModelCredits) int { return int(b.Credits - a.Credits) }) {
			t.Errorf("%+v: models not by credits, most first: %v", f, models)
		}
	}
}
