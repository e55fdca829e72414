package history

import (
	"clapper/record"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
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
	conds, args, words := s.d.where(f)
	from, order := " FROM tasks t", " ORDER BY t.created_at DESC, t.id DESC"
	dir, cmp := "DESC", "<"
	if f.Reverse {
		order, dir, cmp = " ORDER BY t.created_at ASC, t.id ASC", "ASC", ">"
	}
	switch {
	case len(words) > 0:
		// Walk the search index newest first and stop after the page: the
		// rowid order is the list order (see BeginSubmit), so the id alone
		// is the cursor. Collecting every match and sorting would cost time
		// in proportion to how common the words are.
		var id string
		from, id = s.d.searchFrom()
		order = " ORDER BY " + id + " " + dir
		conds, args = s.d.matching(f, words, conds, args)
		if !f.After.IsZero() {
			conds = append(conds, id+" "+cmp+" ?")
			args = append(args, f.After.LocalID)
		}
	case !f.After.IsZero():
		conds = append(conds, "(t.created_at, t.id) "+cmp+" (?, ?)")
		args = append(args, ms(f.After.CreatedAt), f.After.LocalID)
	}
	// One row beyond the page tells whether there is a next page without a
	// second query.
	args = append(args, limit+1)
	query := `SELECT ` + taskCols + from + whereClause(conds) + order + ` LIMIT ?`
	if len(words) > 0 && s.d.postgres {
		// PostgreSQL's search index is a table apart (searchFrom): the
		// page's ids are found there, and only their rows read.
		query = `SELECT ` + taskCols + ` FROM tasks t WHERE t.id IN (SELECT t.id` + from + whereClause(conds) + order + ` LIMIT ?)` + order
	}
	tasks, err := collectTasks(s.r.QueryContext(ctx, query, args...))
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
	conds, args, words := s.d.where(f)
	query := `SELECT t.state, count(*) FROM tasks t` + whereClause(conds) + ` GROUP BY t.state`
	switch {
	case len(words) > 0:
		conds, args = s.d.matching(f, words, conds, args)
		query = `SELECT t.state, count(*)` + s.d.tallyFrom() + whereClause(conds) + ` GROUP BY t.state`
	case len(f.Tags) > 0 || len(f.SentBy) > 0 || f.SetID != 0 || f.Keeper:
		// Tags, senders and sets are no columns of the trigger-kept counts:
		// the tasks answer.
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

// minTrigram is the shortest word SQLite's trigram index can find; shorter
// words fall back to LIKE, which scans (the tasks_words index, not the
// table).
const minTrigram = 3

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// where turns f into conditions on the tasks table (aliased t; the state,
// operation and model conditions also fit task_counts, and all of them
// PostgreSQL's tasks_fts) and the words for the search index (none when the
// text has none). On PostgreSQL every word is the index's: one too short
// for its trigrams is matched by a scan of that narrow table, not of the
// tasks.
func (d *dialect) where(f record.Filter) (conds []string, args []any, words []string) {
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
	if len(f.SentBy) > 0 {
		// by:ann finds ann@any-machine, by:studio-3 anyone on that host,
		// and both the copies with data folders of their own there
		// (ann@studio-3:/data/folder): by:studio-3 and by:ann@studio-3.
		var ors []string
		for _, who := range f.SentBy {
			w := likeEscaper.Replace(who)
			ors = append(ors, `t.sent_by = ?`, `t.sent_by LIKE ? ESCAPE '\'`, `t.sent_by LIKE ? ESCAPE '\'`,
				`t.sent_by LIKE ? ESCAPE '\'`, `t.sent_by LIKE ? ESCAPE '\'`)
			args = append(args, who, w+"@%", "%@"+w, "%@"+w+":%", w+":%")
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	for _, tag := range f.Tags {
		conds = append(conds, "EXISTS (SELECT 1 FROM task_tags g WHERE g.task = t.id AND g.tag = ?)")
		args = append(args, tag)
	}
	if f.SetID != 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM task_set_lines l WHERE l.local_id = t.id AND l.set_id = ?)")
		args = append(args, f.SetID)
	}
	if f.Keeper {
		conds = append(conds, `EXISTS (SELECT 1 FROM task_set_lines l JOIN task_sets ks ON ks.id = l.set_id AND ks.keeper_line = l.line
			WHERE l.local_id = t.id AND l.discarded = 0)`)
	}
	if !f.From.IsZero() {
		conds = append(conds, "t.created_at >= ?")
		args = append(args, ms(f.From))
	}
	if !f.To.IsZero() {
		conds = append(conds, "t.created_at < ?")
		args = append(args, ms(f.To))
	}
	for _, w := range strings.Fields(f.Text) {
		if d.postgres || utf8.RuneCountInString(w) >= minTrigram {
			words = append(words, w)
			continue
		}
		like := "%" + likeEscaper.Replace(w) + "%"
		conds = append(conds, `(t.prompt LIKE ? ESCAPE '\' OR t.task_id LIKE ? ESCAPE '\'
			OR t.model LIKE ? ESCAPE '\' OR t.operation LIKE ? ESCAPE '\')`)
		args = append(args, like, like, like, like)
	}
	return conds, args, words
}

// searchFrom is the FROM clause that reads the search index with the tasks
// (aliased t), and the column that numbers the matches in list order: the
// FTS5 table's rowid on SQLite; on PostgreSQL the index is a table, t, that
// holds the folded text and the columns the conditions of where() read
// (migrations/postgres/0025_search_totals.sql), and the matches are its rows.
func (d *dialect) searchFrom() (from, id string) {
	if d.postgres {
		return " FROM tasks_fts t", "t.id"
	}
	return " FROM tasks_fts f JOIN tasks t ON t.id = f.rowid", "f.rowid"
}

// tallyFrom is searchFrom for counting the matches and summing their
// credits: on SQLite each match is looked up in the narrow index that
// holds what the conditions and the totals read (0025), which the planner
// does not prefer to the rows on its own at a million tasks.
func (d *dialect) tallyFrom() string {
	if d.postgres {
		return " FROM tasks_fts t"
	}
	return " FROM tasks_fts f JOIN tasks t INDEXED BY tasks_by_id ON t.id = f.rowid"
}

// matching puts the search index's conditions before conds on the tasks.
// On SQLite those are the words, and f's dates as a span of ids:
// created_at never decreases as the local id grows (BeginSubmit), so the
// tasks of a span of dates are a span of ids, found in the index on
// created_at; the search index then skips the matches outside it rather
// than each being looked up. PostgreSQL's search table has the dates
// itself, and a span of ids there only hides from the planner how many
// rows it holds.
func (d *dialect) matching(f record.Filter, words []string, conds []string, args []any) ([]string, []any) {
	var search []string
	var searchArgs []any
	if d.postgres {
		// Planned for its words on every call, not once for any words: a
		// word in half the tasks is read by a scan of the table, a rare
		// one through the trigram index, and the plan PostgreSQL caches
		// for a prepared statement after five calls knows neither (a word
		// of two letters read through the index takes seconds).
		searchArgs = append(searchArgs, pgx.QueryExecModeExec)
		for _, w := range words {
			// ~~ is LIKE, which the dialect would make ILIKE (sql): the text
			// is folded already, and a folded pattern is cheaper to match.
			search = append(search, `t.words ~~ ?`)
			searchArgs = append(searchArgs, "%"+likeEscaper.Replace(strings.ToLower(w))+"%")
		}
		return append(search, conds...), append(searchArgs, args...)
	}
	phrases := make([]string, len(words))
	for i, w := range words {
		// A quoted FTS5 string is a phrase; inside it only " is special.
		phrases[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	search, searchArgs = []string{"tasks_fts MATCH ?"}, []any{strings.Join(phrases, " AND ")}
	if !f.From.IsZero() {
		search = append(search, `f.rowid >= coalesce((SELECT id FROM tasks WHERE created_at >= ?
			ORDER BY created_at, id LIMIT 1), 9223372036854775807)`)
		searchArgs = append(searchArgs, ms(f.From))
	}
	if !f.To.IsZero() {
		search = append(search, `f.rowid <= coalesce((SELECT id FROM tasks WHERE created_at < ?
			ORDER BY created_at DESC, id DESC LIMIT 1), 0)`)
		searchArgs = append(searchArgs, ms(f.To))
	}
	return append(search, conds...), append(searchArgs, args...)
}
