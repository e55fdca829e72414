package history

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"clapper/api"
)

// DefaultPageSize is the page size of Tasks when Filter.Limit is zero.
const DefaultPageSize = 50

// maxPageSize bounds a page so that one query cannot pull the whole history
// into memory.
const maxPageSize = 1000

// Filter selects tasks. Zero fields do not filter; the conditions combine with
// AND, the values inside one slice with OR.
type Filter struct {
	// Text: every word must occur, case-insensitively, in the prompt, task
	// id, model or operation of the task.
	Text       string
	States     []string
	Operations []api.Operation
	Models     []string
	// From and To bound created_at: From <= created_at < To.
	From, To time.Time

	After Cursor // where the previous page ended; zero for the first page
	Limit int    // page size; zero means DefaultPageSize
	// Reverse walks oldest first: a page of the rows after After in that
	// order (the rows just newer than it), so a list can page upwards from
	// any row, or start at the bottom.
	Reverse bool
}

// Cursor is the position of a row in the newest-first order. Created_at
// alone is not unique (many tasks in one millisecond), the local id breaks
// ties, so a page never repeats or skips a row however rows are added.
type Cursor struct {
	CreatedAt time.Time
	LocalID   int64
}

// IsZero reports whether the cursor is the start of the list.
func (c Cursor) IsZero() bool { return c.LocalID == 0 && c.CreatedAt.IsZero() }

// Page is one page of tasks, newest first.
type Page struct {
	Tasks []Task
	Next  Cursor // pass as Filter.After for the next page; zero on the last page
}

// Tasks is a page of the tasks that match f, newest first (summary fields).
func (s *Store) Tasks(ctx context.Context, f Filter) (Page, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultPageSize
	}
	limit = min(limit, maxPageSize)
	conds, args, match := f.where()
	from, order := " FROM tasks t", " ORDER BY t.created_at DESC, t.id DESC"
	dir, cmp := "DESC", "<"
	if f.Reverse {
		order, dir, cmp = " ORDER BY t.created_at ASC, t.id ASC", "ASC", ">"
	}
	switch {
	case match != "":
		// Walk the search index newest first and stop after the page: the
		// rowid order is the list order (see BeginSubmit), so the id alone
		// is the cursor. Collecting every match and sorting would cost time
		// in proportion to how common the words are.
		from = " FROM tasks_fts f JOIN tasks t ON t.id = f.rowid"
		order = " ORDER BY f.rowid " + dir
		conds = append([]string{"tasks_fts MATCH ?"}, conds...)
		args = append([]any{match}, args...)
		if !f.After.IsZero() {
			conds = append(conds, "f.rowid "+cmp+" ?")
			args = append(args, f.After.LocalID)
		}
	case !f.After.IsZero():
		conds = append(conds, "(t.created_at, t.id) "+cmp+" (?, ?)")
		args = append(args, ms(f.After.CreatedAt), f.After.LocalID)
	}
	// One row beyond the page tells whether there is a next page without a
	// second query.
	args = append(args, limit+1)
	tasks, err := collectTasks(s.r.QueryContext(ctx, `SELECT `+taskCols+from+whereClause(conds)+order+` LIMIT ?`, args...))
	if err != nil {
		return Page{}, err
	}
	var p Page
	if len(tasks) > limit {
		tasks = tasks[:limit]
		last := tasks[limit-1]
		p.Next = Cursor{CreatedAt: last.CreatedAt, LocalID: last.LocalID}
	}
	p.Tasks = tasks
	return p, nil
}

// CountsByState counts the tasks that match f (After and Limit ignored) by
// state; states without tasks are absent.
func (s *Store) CountsByState(ctx context.Context, f Filter) (map[string]int, error) {
	conds, args, match := f.where()
	query := `SELECT t.state, count(*) FROM tasks t` + whereClause(conds) + ` GROUP BY t.state`
	switch {
	case match != "":
		conds = append([]string{"tasks_fts MATCH ?"}, conds...)
		args = append([]any{match}, args...)
		query = `SELECT t.state, count(*) FROM tasks_fts f JOIN tasks t ON t.id = f.rowid` +
			whereClause(conds) + ` GROUP BY t.state`
	case f.Text == "" && f.From.IsZero() && f.To.IsZero():
		// Only state, operation and model: the trigger-kept counts answer.
		query = `SELECT t.state, sum(t.n) FROM task_counts t` + whereClause(conds) +
			` GROUP BY t.state HAVING sum(t.n) > 0`
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var (
			state string
			n     int
		)
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out[state] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

func whereClause(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// minTrigram is the shortest word the trigram index can find; shorter words
// fall back to LIKE, which scans.
const minTrigram = 3

// where turns f into conditions on the tasks table (aliased t; the state,
// operation and model conditions also fit task_counts) and an FTS5 query for
// the words the trigram index can find, "" when none.
func (f Filter) where() (conds []string, args []any, match string) {
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		conds = append(conds, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("t.state", f.States)
	ops := make([]string, len(f.Operations))
	for i, op := range f.Operations {
		ops[i] = string(op)
	}
	in("t.operation", ops)
	in("t.model", f.Models)
	if !f.From.IsZero() {
		conds = append(conds, "t.created_at >= ?")
		args = append(args, ms(f.From))
	}
	if !f.To.IsZero() {
		conds = append(conds, "t.created_at < ?")
		args = append(args, ms(f.To))
	}

	var phrases []string
	for _, w := range strings.Fields(f.Text) {
		if utf8.RuneCountInString(w) >= minTrigram {
			// A quoted FTS5 string is a phrase; inside it only " is special.
			phrases = append(phrases, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
			continue
		}
		like := "%" + likeEscaper.Replace(w) + "%"
		conds = append(conds, `(t.prompt LIKE ? ESCAPE '\' OR t.task_id LIKE ? ESCAPE '\'
			OR t.model LIKE ? ESCAPE '\' OR t.operation LIKE ? ESCAPE '\')`)
		args = append(args, like, like, like, like)
	}
	return conds, args, strings.Join(phrases, " AND ")
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// DayCredits is the spending of one calendar day.
type DayCredits struct {
	Day     time.Time // midnight starting the day, in from's location
	Credits int64
	Tasks   int // tasks the service accepted that day
}

// CreditsByDay sums credits per calendar day of from's location over the
// tasks created in [from, to), one entry per day including idle days, oldest
// first.
func (s *Store) CreditsByDay(ctx context.Context, from, to time.Time) ([]DayCredits, error) {
	if from.IsZero() || !to.After(from) {
		return nil, fmt.Errorf("history: CreditsByDay needs from < to")
	}
	loc := from.Location()
	// Calendar days, not 24 h steps: a day with a DST change is 23 or 25 h.
	day := func(t time.Time) time.Time {
		y, m, d := t.In(loc).Date()
		return time.Date(y, m, d, 0, 0, 0, 0, loc)
	}
	var out []DayCredits
	index := map[string]int{}
	for d := day(from); d.Before(to); d = d.AddDate(0, 0, 1) {
		index[d.Format(time.DateOnly)] = len(out)
		out = append(out, DayCredits{Day: d})
	}
	rows, err := s.r.QueryContext(ctx, `SELECT created_at, credits FROM tasks
		WHERE created_at >= ? AND created_at < ? AND task_id IS NOT NULL`, ms(from), ms(to))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var created, credits int64
		if err := rows.Scan(&created, &credits); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		i := index[day(fromMS(created)).Format(time.DateOnly)]
		out[i].Credits += credits
		out[i].Tasks++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// ModelCredits is the spending on one model.
type ModelCredits struct {
	Model   string // the operation's name for operations without a model (lip-sync, ...)
	Credits int64
	Tasks   int
}

// CreditsByModel sums credits per model over the tasks the service accepted
// in [from, to) (zero bounds are open), most credits first.
func (s *Store) CreditsByModel(ctx context.Context, from, to time.Time) ([]ModelCredits, error) {
	var (
		conds = []string{"t.task_id IS NOT NULL"}
		args  []any
	)
	if !from.IsZero() {
		conds = append(conds, "t.created_at >= ?")
		args = append(args, ms(from))
	}
	if !to.IsZero() {
		conds = append(conds, "t.created_at < ?")
		args = append(args, ms(to))
	}
	rows, err := s.r.QueryContext(ctx, `SELECT CASE t.model WHEN '' THEN t.operation ELSE t.model END AS m,
		sum(t.credits), count(*) FROM tasks t`+whereClause(conds)+` GROUP BY m ORDER BY 2 DESC, 1`, args...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []ModelCredits
	for rows.Next() {
		var m ModelCredits
		if err := rows.Scan(&m.Model, &m.Credits, &m.Tasks); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}
