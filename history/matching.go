package history

import (
	"clapper/record"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
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
