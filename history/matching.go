package history

import (
	"cmp"
	"context"
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
// state and sums what they were charged, in one pass over the matches: a
// common word over a year is 25,000 of 100,000 tasks, each looked up once.
func (s *Store) TotalsMatching(ctx context.Context, f record.Filter) (record.Totals, error) {
	query, args := s.totalsQuery(f)
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return record.Totals{}, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	out := record.Totals{States: map[string]int{}}
	for rows.Next() {
		var (
			state   string
			n       int
			credits int64
		)
		if err := rows.Scan(&state, &n, &credits); err != nil {
			return record.Totals{}, fmt.Errorf("history: %w", err)
		}
		out.States[state] = n
		out.Credits += credits
	}
	if err := rows.Err(); err != nil {
		return record.Totals{}, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// totalsQuery is TotalsMatching's statement.
func (s *Store) totalsQuery(f record.Filter) (string, []any) {
	conds, args, words := s.d.where(f)
	from := ` FROM tasks t`
	if len(words) > 0 {
		conds, args = s.d.matching(f, words, conds, args)
		from = s.d.tallyFrom()
	}
	return `SELECT t.state, count(*), sum(t.credits)` + from + whereClause(conds) + ` GROUP BY t.state`, args
}

// ChartsMatching is CreditsByDay and CreditsByModel of the tasks that match
// f (its dates replaced by the span [from, to)): the History page's charts
// of a search. Days are calendar days in from's location, every day of the
// span listed; the matches are summed by the minute in one pass, and the
// minutes put in their days here (a zone's offset is whole minutes).
func (s *Store) ChartsMatching(ctx context.Context, f record.Filter, from, to time.Time) ([]record.DayCredits, []record.ModelCredits, error) {
	if from.IsZero() || !to.After(from) {
		return nil, nil, fmt.Errorf("history: ChartsMatching needs from < to")
	}
	f.From, f.To = from, to
	conds, args, words := s.d.where(f)
	table := ` FROM tasks t`
	if len(words) > 0 {
		conds, args = s.d.matching(f, words, conds, args)
		table = s.d.tallyFrom()
	}
	// Tasks the service took, as CreditsByDay counts (the search table on
	// PostgreSQL has no task id: the states of requests never taken).
	conds = append(conds, "t.state NOT IN (?, ?, ?)")
	args = append(args, record.StateSubmitting, record.StateRejected, record.StateAbandoned)
	loc := from.Location()
	var days []record.DayCredits
	index := map[time.Time]int{}
	y, m, d := from.In(loc).Date()
	for day := time.Date(y, m, d, 0, 0, 0, 0, loc); day.Before(to); day = day.AddDate(0, 0, 1) {
		index[day] = len(days)
		days = append(days, record.DayCredits{Day: day})
	}
	rows, err := s.r.QueryContext(ctx, `SELECT t.created_at / 60000 AS minute, sum(t.credits), count(*)`+table+whereClause(conds)+
		` GROUP BY t.created_at / 60000`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			minute, credits int64
			n               int
		)
		if err := rows.Scan(&minute, &credits, &n); err != nil {
			return nil, nil, fmt.Errorf("history: %w", err)
		}
		y, m, d := time.UnixMilli(minute * 60000).In(loc).Date()
		if i, ok := index[time.Date(y, m, d, 0, 0, 0, 0, loc)]; ok {
			days[i].Credits += credits
			days[i].Tasks += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	rows.Close()
	rows, err = s.r.QueryContext(ctx, `SELECT CASE t.model WHEN '' THEN t.operation ELSE t.model END AS m, sum(t.credits), count(*)`+
		table+whereClause(conds)+` GROUP BY m`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var models []record.ModelCredits
	for rows.Next() {
		var mc record.ModelCredits
		if err := rows.Scan(&mc.Model, &mc.Credits, &mc.Tasks); err != nil {
			return nil, nil, fmt.Errorf("history: %w", err)
		}
		models = append(models, mc)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	slices.SortFunc(models, func(a, b record.ModelCredits) int {
		return cmp.Or(cmp.Compare(b.Credits, a.Credits), strings.Compare(a.Model, b.Model))
	})
	return days, models, nil
}
