package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxPageSize bounds a page so that one query cannot pull the whole history
// into memory.
const maxPageSize = 1000

// Tasks is a page of the tasks that match f, newest first (summary fields).
func (s *Store) Tasks(ctx context.Context, f record.Filter) (record.Page, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = record.DefaultPageSize
	}
	limit = min(limit, maxPageSize)
	conds, args, match := where(f)
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
		conds, args = matching(f, match, conds, args)
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
		return record.Page{}, err
	}
	var p record.Page
	if len(tasks) > limit {
		tasks = tasks[:limit]
		last := tasks[limit-1]
		p.Next = record.Cursor{CreatedAt: last.CreatedAt, LocalID: last.LocalID}
	}
	p.Tasks = tasks
	return p, nil
}

// CountsByState counts the tasks that match f (After and Limit ignored) by
// state; states without tasks are absent.
func (s *Store) CountsByState(ctx context.Context, f record.Filter) (map[string]int, error) {
	conds, args, match := where(f)
	query := `SELECT t.state, count(*) FROM tasks t` + whereClause(conds) + ` GROUP BY t.state`
	switch {
	case match != "":
		conds, args = matching(f, match, conds, args)
		query = `SELECT t.state, count(*) FROM tasks_fts f JOIN tasks t INDEXED BY tasks_by_id ON t.id = f.rowid` +
			whereClause(conds) + ` GROUP BY t.state`
	case len(f.Tags) > 0:
		// Tags are no column of the trigger-kept counts: the tasks answer.
	case f.Text == "" && len(f.Operations) == 0 && len(f.Models) == 0 && !(f.From.IsZero() && f.To.IsZero()):
		// Dates (and states): the trigger-kept sums per day answer.
		return s.countsByDay(ctx, f)
	case f.Text == "" && f.From.IsZero() && f.To.IsZero():
		// Only state, operation and model: the trigger-kept counts answer.
		query = `SELECT t.state, sum(t.n) FROM task_counts t` + whereClause(conds) +
			` GROUP BY t.state HAVING sum(t.n) > 0`
	}
	return stateCounts(s.r.QueryContext(ctx, query, args...))
}

// stateCounts reads rows of (state, count) into a map, leaving out states
// counted zero.
func stateCounts(rows *sql.Rows, err error) (map[string]int, error) {
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
		if n > 0 {
			out[state] = n
		}
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
// fall back to LIKE, which scans (the tasks_words index, not the table).
const minTrigram = 3

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// where turns f into conditions on the tasks table (aliased t; the state,
// operation and model conditions also fit task_counts) and an FTS5 query for
// the words the trigram index can find, "" when none.
func where(f record.Filter) (conds []string, args []any, match string) {
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
	for _, tag := range f.Tags {
		conds = append(conds, "EXISTS (SELECT 1 FROM task_tags g WHERE g.task = t.id AND g.tag = ?)")
		args = append(args, tag)
	}
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

// matching puts the search index's conditions (aliased f) before conds on
// the tasks: the words, and f's dates as a span of ids. created_at never
// decreases as the local id grows (BeginSubmit), so the tasks of a span of
// dates are a span of ids, found in the index on created_at; the search
// index then skips the matches outside it rather than each being looked up.
func matching(f record.Filter, match string, conds []string, args []any) ([]string, []any) {
	fts, ftsArgs := []string{"tasks_fts MATCH ?"}, []any{match}
	if !f.From.IsZero() {
		fts = append(fts, `f.rowid >= coalesce((SELECT id FROM tasks WHERE created_at >= ?
			ORDER BY created_at, id LIMIT 1), 9223372036854775807)`)
		ftsArgs = append(ftsArgs, ms(f.From))
	}
	if !f.To.IsZero() {
		fts = append(fts, `f.rowid <= coalesce((SELECT id FROM tasks WHERE created_at < ?
			ORDER BY created_at DESC, id DESC LIMIT 1), 0)`)
		ftsArgs = append(ftsArgs, ms(f.To))
	}
	return append(fts, conds...), append(ftsArgs, args...)
}
