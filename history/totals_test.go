package history

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

// taskRow is what the totals are made of, read straight from tasks.
type taskRow struct {
	created      int64
	state, model string
	credits      int64
	accepted     bool
}

func allRows(t *testing.T, s *Store) []taskRow {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), `SELECT created_at, state,
		CASE model WHEN '' THEN operation ELSE model END, credits, task_id IS NOT NULL FROM tasks`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []taskRow
	for rows.Next() {
		var r taskRow
		if err := rows.Scan(&r.created, &r.state, &r.model, &r.credits, &r.accepted); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// totalsHistory is a history of tasks over ten days, every 7 to 90
// minutes, written through the store's own calls: intents, submissions,
// results with credits, some rejected, some still in flight.
func totalsHistory(t *testing.T) *Store {
	s, clk := newStore(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	models := []string{"svcq1", "svcq2", ""}
	for i := range 300 {
		clk.Advance(time.Duration(7+rng.IntN(83)) * time.Minute)
		id, err := s.BeginSubmit(ctx, record.Intent{Operation: api.OpText2Video, Body: []byte(fmt.Sprintf(`{"model":%q,"prompt":"p"}`, models[i%3]))})
		if err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			if err := s.MarkRejected(ctx, id, record.Rejection{Status: 400, Reason: "BadRequest"}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		taskID := fmt.Sprint("tk-", i)
		if err := s.MarkSubmitted(ctx, id, record.SubmittedEcho{TaskID: taskID}); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			continue // in flight
		}
		state := api.StateSuccess
		if i%4 == 0 {
			state = api.StateFailed
		}
		if _, err := s.ApplyResult(ctx, taskID, record.Update{State: state, Credits: int64(rng.IntN(50))}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// The totals read from the per-day and per-hour sums equal the sums of the
// task rows, for spans that start and end anywhere (inside an hour, on a
// day, open), in UTC, in a zone with summer time and in one half an hour
// off: counts by state, credits by day and credits by model.
func TestTotalsMatchTheTasks(t *testing.T) {
	s := totalsHistory(t)
	ctx := context.Background()
	checkTotals(t, s, 60)
	// A task that goes (deleted by hand: clapper itself never deletes one)
	// leaves the sums too.
	if _, err := s.w.ExecContext(ctx, `DELETE FROM tasks WHERE id % 3 = 0`); err != nil {
		t.Fatal(err)
	}
	checkTotals(t, s, 15)
}

func checkTotals(t *testing.T, s *Store, spans int) {
	t.Helper()
	ctx := context.Background()
	rows := allRows(t, s)
	first := time.UnixMilli(slices.MinFunc(rows, func(a, b taskRow) int { return int(a.created - b.created) }).created)
	ny, _ := time.LoadLocation("America/New_York")
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range spans {
		loc := []*time.Location{time.UTC, ny, kolkata}[i%3]
		from := first.Add(time.Duration(rng.IntN(5*24*60)-60) * time.Minute).In(loc)
		to := from.Add(time.Duration(1+rng.IntN(6*24*60)) * time.Minute)
		if i%5 == 0 { // on midnights, as the History page asks
			y, m, d := from.Date()
			from = time.Date(y, m, d, 0, 0, 0, 0, loc)
			to = from.AddDate(0, 0, 1+rng.IntN(6))
		}
		name := fmt.Sprintf("%s %s..%s", loc, from.Format(time.DateTime), to.Format(time.DateTime))
		in := func(r taskRow) bool { return r.created >= from.UnixMilli() && r.created < to.UnixMilli() }

		wantCounts := map[string]int{}
		wantModels := map[string]record.ModelCredits{}
		for _, r := range rows {
			if !in(r) {
				continue
			}
			wantCounts[r.state]++
			if r.accepted {
				m := wantModels[r.model]
				m.Model, m.Credits, m.Tasks = r.model, m.Credits+r.credits, m.Tasks+1
				wantModels[r.model] = m
			}
		}
		counts, err := s.CountsByState(ctx, record.Filter{From: from, To: to})
		if err != nil || !maps.Equal(counts, wantCounts) {
			t.Errorf("%s: counts %v, want %v (%v)", name, counts, wantCounts, err)
		}
		failed, err := s.CountsByState(ctx, record.Filter{From: from, To: to, States: []string{api.StateFailed}})
		if err != nil || failed[api.StateFailed] != wantCounts[api.StateFailed] || len(failed) > 1 {
			t.Errorf("%s: failed counts %v, want %d (%v)", name, failed, wantCounts[api.StateFailed], err)
		}
		models, err := s.CreditsByModel(ctx, from, to)
		if err != nil || len(models) != len(wantModels) {
			t.Errorf("%s: by model %v, want %v (%v)", name, models, wantModels, err)
		}
		for k, m := range models {
			if m != wantModels[m.Model] || k > 0 && models[k-1].Credits < m.Credits {
				t.Errorf("%s: by model %v, want %v", name, models, wantModels)
				break
			}
		}
		days, err := s.CreditsByDay(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range days {
			var want record.DayCredits
			end := d.Day.AddDate(0, 0, 1)
			for _, r := range rows {
				if in(r) && r.accepted && r.created >= d.Day.UnixMilli() && r.created < end.UnixMilli() {
					want.Credits += r.credits
					want.Tasks++
				}
			}
			if d.Credits != want.Credits || d.Tasks != want.Tasks {
				t.Errorf("%s: day %s %d credits %d tasks, want %d %d", name, d.Day, d.Credits, d.Tasks, want.Credits, want.Tasks)
			}
		}
	}
}
