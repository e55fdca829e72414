package history

import "testing"

// A statement as PostgreSQL takes it: each ? is the next $N, a numbered
// ?N (a parameter used twice, as the downloads' and prompts' statements
// use them) is $N whatever its digits, 0 and 9 included, and a ? inside
// quotes is text. The statements end in a parameter as often as not.
func TestPostgresNumbersTheParameters(t *testing.T) {
	d := &dialect{postgres: true}
	for _, c := range []struct{ in, want string }{
		{`UPDATE downloads SET status = ?1, bytes = ?3 WHERE id = ?7 AND (?8 = '' OR owner = ?8)`,
			`UPDATE downloads SET status = $1, bytes = $3 WHERE id = $7 AND ($8 = '' OR owner = $8)`},
		{`SELECT id FROM tasks WHERE a = ?10 AND b = ?9 AND c = ?20`, `SELECT id FROM tasks WHERE a = $10 AND b = $9 AND c = $20`},
		{`SELECT '?', x FROM tasks WHERE note = 'a?b' AND a = ? AND b = ?`, `SELECT '?', x FROM tasks WHERE note = 'a?b' AND a = $1 AND b = $2`},
		{`SELECT x FROM tasks WHERE a = ?`, `SELECT x FROM tasks WHERE a = $1`},
		{`SELECT x FROM tasks WHERE a = ?2`, `SELECT x FROM tasks WHERE a = $2`},
	} {
		if got := d.sql(c.in); got != c.want {
			t.Errorf("%s\n as %s\n want %s", c.in, got, c.want)
		}
	}
}
