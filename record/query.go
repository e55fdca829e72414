package record

import (
	"clapper/api"
	"time"
)

// Filter selects tasks. Zero fields do not filter; the conditions combine with
// AND, the values inside one slice with OR.
type Filter struct {
	// Text: every word must occur, case-insensitively, in the prompt, task
	// id, model or operation of the task.
	Text       string
	States     []string
	Operations []api.Operation
	Models     []string
	// Tags: the task has every one of them.
	Tags []string
	// SentBy: sent by one of them: user@machine, a user (on any machine)
	// or a machine (by anyone).
	SentBy []string
	// SetID: a line of that set (a batch, variations); Keeper: the version
	// a contact sheet keeps (★).
	SetID  int64
	Keeper bool
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

// DefaultPageSize is the page size of Tasks when Filter.Limit is zero.
const DefaultPageSize = 50

// Page is one page of tasks, newest first.
type Page struct {
	Tasks []Task
	Next  Cursor // pass as Filter.After for the next page; zero on the last page
}
