package history

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"clapper/record"
)

// Count is how many tasks match f (After and Limit ignored). On SQLite,
// words and dates alone are answered by the search index, without reading
// a task; PostgreSQL's search table holds what every condition reads, and
// its counts by state answer.
func (s *Store) Count(ctx context.Context, f record.Filter) (int, error) {
	conds, _, words := s.d.where(f)
	// Any condition beyond the words and the dates is on the tasks.
	bare, _, _ := s.d.where(record.Filter{Text: f.Text, From: f.From, To: f.To})
	if s.d.postgres || len(words) == 0 || len(conds) != len(bare) || !indexable(f.Text) {
		counts, err := s.CountsByState(ctx, f)
		n := 0
		for _, c := range counts {
			n += c
		}
		return n, err
	}
	// The dates' conditions on the tasks are left to the span of ids.
	conds, args := s.d.matching(f, words, nil, nil)
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM tasks_fts f`+whereClause(conds), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return n, nil
}

// indexable reports that the search index finds every word of text.
func indexable(text string) bool {
	for _, w := range strings.Fields(text) {
		if utf8.RuneCountInString(w) < minTrigram {
			return false
		}
	}
	return true
}

// TotalsMatching counts the tasks that match f (After and Limit ignored) by
// state and sums what they were charged; when from is before to, it charts
// the matches in [from, to) that the service took, as CreditsByDay (every
// calendar day of from's location in the span) and CreditsByModel do. One
// statement, no match held: on SQLite one pass over the matches, each
// looked up once, into one aggregate by state, model and day of the span
// (-1 outside it), a few hundred groups added up here (the charts read in
// a second pass cost a broad search half again its time and memory). On
// PostgreSQL the totals and the charts are two aggregates of one
// statement: the totals a parallel count of every match by state, the
// charts only the span's matches, found by their dates; folded into one
// pass, every match of a broad search was given a day and a model (2.5x
// the time at a million tasks).
func (s *Store) TotalsMatching(ctx context.Context, f record.Filter, from, to time.Time) (record.Totals, error) {
	out := record.Totals{States: map[string]int{}}
	var starts []int64
	if !from.IsZero() && to.After(from) {
		out.ByDay, starts = calendarDays(from, to)
	}
	groups, err := s.tallies(ctx, f, from, to, starts)
	if err != nil {
		return record.Totals{}, err
	}
	models := map[string]int{} // a model's place in out.ByModel
	for _, g := range groups {
		if !g.chartOnly {
			out.States[g.State] += g.N
			out.Credits += g.Credits
		}
		if g.Day < 0 {
			continue
		}
		out.ByDay[g.Day].Credits += g.Credits
		out.ByDay[g.Day].Tasks += g.N
		i, ok := models[g.Model]
		if !ok {
			i, models[g.Model] = len(out.ByModel), len(out.ByModel)
			out.ByModel = append(out.ByModel, record.ModelCredits{Model: g.Model})
		}
		out.ByModel[i].Credits += g.Credits
		out.ByModel[i].Tasks += g.N
	}
	slices.SortFunc(out.ByModel, func(a, b record.ModelCredits) int {
		return cmp.Or(cmp.Compare(b.Credits, a.Credits), strings.Compare(a.Model, b.Model))
	})
	return out, nil
}

// tallies runs totalsQuery and reads its groups.
func (s *Store) tallies(ctx context.Context, f record.Filter, from, to time.Time, starts []int64) ([]tally, error) {
	query, args := s.totalsQuery(f, from, to, starts)
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var groups []tally
	for rows.Next() {
		if !s.d.postgres {
			var encoded string
			if err := rows.Scan(&encoded); err != nil {
				return nil, fmt.Errorf("history: %w", err)
			}
			if err := json.Unmarshal([]byte(encoded), &groups); err != nil {
				return nil, fmt.Errorf("history: %s: %w", tallyFunc, err)
			}
			continue
		}
		var g tally
		if err := rows.Scan(&g.State, &g.Day, &g.Model, &g.N, &g.Credits, &g.chartOnly); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		groups = append(groups, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return groups, nil
}

// totalsQuery is TotalsMatching's statement: the matches are a CTE, so
// that the search's arguments come first (PostgreSQL's search puts its
// query mode, which must lead, before them), then the day's. Each day of
// starts is a day of the charts; none: no charts. SQLite's is one row
// (tallyFunc) of groups that are both totals and charts (day -1: totals
// only). PostgreSQL's is a row a group, and its charts are counted apart
// from its totals unless the span holds every match (a search within
// dates, charted over them): then one pass does both.
func (s *Store) totalsQuery(f record.Filter, from, to time.Time, starts []int64) (string, []any) {
	conds, args, words := s.d.where(f)
	table := ` FROM tasks t`
	if len(words) > 0 {
		conds, args = s.d.matching(f, words, conds, args)
		table = s.d.tallyFrom()
	}
	// Read twice on PostgreSQL, the CTE is inlined in each read (not
	// materialized: a broad search's matches written out whole), and the
	// charts' read finds the span by the index on its dates.
	matches := `WITH matches AS NOT MATERIALIZED (SELECT t.state, t.created_at, t.credits, CASE t.model WHEN '' THEN t.operation ELSE t.model END AS model` +
		table + whereClause(conds) + `)`
	if !s.d.postgres {
		matches = `WITH matches AS (` + strings.TrimPrefix(matches, `WITH matches AS NOT MATERIALIZED (`)
	}
	// Tasks the service took, as CreditsByDay counts (the search table on
	// PostgreSQL has no task id: the states of requests never taken).
	taken := "created_at >= ? AND created_at < ? AND state NOT IN (?, ?, ?)"
	takenArgs := []any{ms(from), ms(to), record.StateSubmitting, record.StateRejected, record.StateAbandoned}
	whens, whenArgs := dayWhens("created_at", starts)
	day, dayArgs := "-1", []any(nil)
	if len(starts) > 0 {
		day = "CASE WHEN NOT (" + taken + ") THEN -1" + whens + " END"
		dayArgs = append(takenArgs, whenArgs...)
	}
	if !s.d.postgres {
		return matches + ` SELECT ` + tallyFunc + `(state, ` + day + `, model, credits) FROM matches`, append(args, dayArgs...)
	}
	spanHoldsAll := len(starts) > 0 && !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(from) && !f.To.After(to)
	if spanHoldsAll {
		// The day is joined to the list of days: grouped by the day's
		// expression, PostgreSQL expects as many groups as matches (it
		// reads created_at's distinct values) and sums them on one core;
		// by the list's, a few hundred, in parallel, each core summing
		// its share of the matches.
		args = append(append(args, len(starts)-2), dayArgs...)
		return matches + ` SELECT state, d.i, model, count(*), sum(credits), false
			FROM matches JOIN generate_series(-1, CAST(? AS BIGINT)) AS d(i) ON d.i = ` + day + ` GROUP BY 1, 2, 3`, args
	}
	totals := ` SELECT state, -1, '', count(*), sum(credits), false FROM matches GROUP BY 1`
	if len(starts) == 0 {
		return matches + totals, args
	}
	return matches + totals + ` UNION ALL SELECT state, CASE` + whens + ` END, model, count(*), sum(credits), true
		FROM matches WHERE ` + taken + ` GROUP BY 1, 2, 3`, append(append(args, whenArgs...), takenArgs...)
}
