package history

import (
	"clapper/record"
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Totals over spans of dates read the tables of migration 0012 (sums per
// UTC day, and per hour for credits) for the whole units of a span, and the
// tasks themselves only for the partial units at its two ends: a year costs
// a few thousand summary rows and two partial days of tasks, not 100,000
// task rows.

const (
	dayMS  = int64(24 * time.Hour / time.Millisecond)
	hourMS = int64(time.Hour / time.Millisecond)
)

// span splits [from, to) (unix ms; open ends are math.MinInt64 and
// math.MaxInt64) into the whole units of unit ms it covers, [lo, hi) in
// units, and the partial ends, [from, lo*unit) and [hi*unit, to) in ms
// (empty when from == lo*unit or hi*unit == to). A span inside one unit has
// no whole unit: its head is all of it.
type span struct {
	lo, hi           int64 // whole units
	headFrom, headTo int64 // ms
	tailFrom, tailTo int64 // ms
	hasWhole         bool
}

func splitSpan(from, to, unit int64) span {
	floor := func(v int64) int64 { return int64(math.Floor(float64(v) / float64(unit))) }
	ceil := func(v int64) int64 { return int64(math.Ceil(float64(v) / float64(unit))) }
	var sp span
	sp.lo, sp.hi = math.MinInt64/unit, math.MaxInt64/unit
	if from != math.MinInt64 {
		sp.lo = ceil(from)
	}
	if to != math.MaxInt64 {
		sp.hi = floor(to)
	}
	if sp.lo >= sp.hi {
		// No whole unit: the span is all edge.
		return span{headFrom: from, headTo: to}
	}
	sp.hasWhole = true
	sp.headFrom, sp.headTo = from, from
	if from != math.MinInt64 {
		sp.headTo = sp.lo * unit
	}
	sp.tailFrom, sp.tailTo = to, to
	if to != math.MaxInt64 {
		sp.tailFrom = sp.hi * unit
	}
	return sp
}

// edgeCond is the condition on tasks t for the partial ends of the span,
// with its arguments.
func (sp span) edgeCond() (string, []any) {
	return "((t.created_at >= ? AND t.created_at < ?) OR (t.created_at >= ? AND t.created_at < ?))",
		[]any{sp.headFrom, sp.headTo, sp.tailFrom, sp.tailTo}
}

func bound(t time.Time, open int64) int64 {
	if t.IsZero() {
		return open
	}
	return ms(t)
}

// countsByDay answers CountsByState for a filter on dates and states only.
func (s *Store) countsByDay(ctx context.Context, f record.Filter) (map[string]int, error) {
	sp := splitSpan(bound(f.From, math.MinInt64), bound(f.To, math.MaxInt64), dayMS)
	states, stateArgs := "", []any{}
	if len(f.States) > 0 {
		states = " AND state IN (?" + strings.Repeat(", ?", len(f.States)-1) + ")"
		for _, st := range f.States {
			stateArgs = append(stateArgs, st)
		}
	}
	edge, args := sp.edgeCond()
	args = append(args, stateArgs...)
	query := `SELECT state, count(*) FROM tasks t WHERE ` + edge + states + ` GROUP BY state`
	if sp.hasWhole {
		query = `SELECT state, sum(n) FROM (
			SELECT state, n FROM state_days WHERE day >= ? AND day < ?` + states + `
			UNION ALL
			SELECT state, 1 FROM tasks t WHERE ` + edge + states + `
		) AS spans GROUP BY state`
		args = append(append([]any{sp.lo, sp.hi}, stateArgs...), args...)
	}
	return stateCounts(s.r.QueryContext(ctx, query, args...))
}

// CreditsByDay sums credits per calendar day of from's location over the
// tasks created in [from, to), one entry per day including idle days, oldest
// first. The database adds the hourly sums up into days: a year is 8,760
// of them, and one row a day reaches the caller instead (a tenth of the
// time on the client, a twentieth of the allocations).
func (s *Store) CreditsByDay(ctx context.Context, from, to time.Time) ([]record.DayCredits, error) {
	if from.IsZero() || !to.After(from) {
		return nil, fmt.Errorf("history: CreditsByDay needs from < to")
	}
	out, starts := calendarDays(from, to)
	aligned := true
	for _, start := range starts {
		aligned = aligned && start%hourMS == 0
	}
	sp := splitSpan(ms(from), ms(to), hourMS)
	if !aligned {
		// Days that start inside an hour (a zone at a half-hour offset):
		// the hourly sums cannot be cut there, so every task is read.
		sp = span{headFrom: ms(from), headTo: ms(to)}
	}
	edge, args := sp.edgeCond()
	query := `SELECT t.created_at AS at, t.credits AS credits, 1 AS tasks FROM tasks t WHERE t.task_id IS NOT NULL AND ` + edge
	if sp.hasWhole {
		query = `SELECT hour * ` + fmt.Sprint(hourMS) + ` AS at, credits, tasks FROM credit_hours WHERE hour >= ? AND hour < ?
			UNION ALL ` + query
		args = append([]any{sp.lo, sp.hi}, args...)
	}
	whens, dayArgs := dayWhens("at", starts)
	rows, err := s.r.QueryContext(ctx, `SELECT CASE`+whens+` END AS d, sum(credits), sum(tasks) FROM (`+query+`) AS spans GROUP BY d`,
		append(dayArgs, args...)...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			i       int
			credits int64
			tasks   int
		)
		if err := rows.Scan(&i, &credits, &tasks); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out[i].Credits += credits
		out[i].Tasks += tasks
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// calendarDays lists the calendar days of from's location that [from, to)
// touches, with no credits yet, and starts, each day's first ms and then
// the end of the last. Calendar days, not 24 h steps: a day with a DST
// change is 23 or 25 h.
func calendarDays(from, to time.Time) (days []record.DayCredits, starts []int64) {
	loc := from.Location()
	y, m, d := from.In(loc).Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, loc)
	for ; day.Before(to); day = day.AddDate(0, 0, 1) {
		days = append(days, record.DayCredits{Day: day})
		starts = append(starts, ms(day))
	}
	return days, append(starts, ms(day))
}

// dayWhens is the WHEN clauses of a CASE that is the day holding the time
// in column at (unix ms, from starts[0] to the end), as an index of starts
// (each day's first ms, then the end of the last): a run of 24-hour days
// is counted off by division, a day of 23 or 25 hours (a clock change) is
// one clause of its own.
func dayWhens(at string, starts []int64) (string, []any) {
	var (
		b    strings.Builder
		args []any
	)
	for i := 0; i < len(starts)-1; {
		if starts[i+1]-starts[i] != dayMS {
			b.WriteString(" WHEN " + at + " < ? THEN CAST(? AS BIGINT)")
			args = append(args, starts[i+1], i)
			i++
			continue
		}
		j := i + 1 // the run is days i to j-1
		for j < len(starts)-1 && starts[j+1]-starts[j] == dayMS {
			j++
		}
		b.WriteString(" WHEN " + at + " < ? THEN CAST(? AS BIGINT) + (" + at + " - ?) / " + fmt.Sprint(dayMS))
		args = append(args, starts[j], i, starts[i])
		i = j
	}
	return b.String(), args
}

// CreditsByModel sums credits per model over the tasks the service accepted
// in [from, to) (zero bounds are open), most credits first.
func (s *Store) CreditsByModel(ctx context.Context, from, to time.Time) ([]record.ModelCredits, error) {
	sp := splitSpan(bound(from, math.MinInt64), bound(to, math.MaxInt64), dayMS)
	edge, args := sp.edgeCond()
	query := `SELECT CASE t.model WHEN '' THEN t.operation ELSE t.model END AS m, t.credits AS c, 1 AS n
		FROM tasks t WHERE t.task_id IS NOT NULL AND ` + edge
	if sp.hasWhole {
		query = `SELECT model AS m, credits AS c, tasks AS n FROM model_days WHERE day >= ? AND day < ?
			UNION ALL ` + query
		args = append([]any{sp.lo, sp.hi}, args...)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT m, sum(c), sum(n) FROM (`+query+`) AS spans GROUP BY m HAVING sum(n) > 0`, args...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []record.ModelCredits
	for rows.Next() {
		var m record.ModelCredits
		if err := rows.Scan(&m.Model, &m.Credits, &m.Tasks); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	slices.SortFunc(out, func(a, b record.ModelCredits) int {
		return cmp.Or(cmp.Compare(b.Credits, a.Credits), strings.Compare(a.Model, b.Model))
	})
	return out, nil
}
