package history

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"clapper/internal/pgtest"
)

// Both migration trees carry the same numbers and end with the same tables
// and columns: a team's database holds what a history file holds. The one
// difference is the search index, which SQLite keeps as FTS5 tables and
// PostgreSQL as an index on the tasks.
func TestMigrationTreesDefineTheSameSchema(t *testing.T) {
	if len(migrations) != len(pgMigrations) {
		t.Fatalf("%d SQLite migrations, %d PostgreSQL ones: every number is in both trees", len(migrations), len(pgMigrations))
	}
	ctx := context.Background()
	lite, err := Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	url := pgtest.Get(t).Database(t, "", nil)
	pg, err := OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()

	columns := func(s *Store, query string) []string {
		t.Helper()
		rows, err := s.r.QueryContext(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var table, column string
			if err := rows.Scan(&table, &column); err != nil {
				t.Fatal(err)
			}
			out = append(out, table+"."+column)
		}
		slices.Sort(out)
		return out
	}
	inLite := columns(lite, `SELECT m.name, c.name FROM sqlite_master m, pragma_table_info(m.name) c
		WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE 'tasks_fts%'`)
	inPG := columns(pg, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name != 'clapper_schema'`)
	if len(inLite) < 100 {
		t.Fatalf("only %d columns read from SQLite: %v", len(inLite), inLite)
	}
	var onlyLite, onlyPG []string
	for _, c := range inLite {
		if !slices.Contains(inPG, c) {
			onlyLite = append(onlyLite, c)
		}
	}
	for _, c := range inPG {
		if !slices.Contains(inLite, c) {
			onlyPG = append(onlyPG, c)
		}
	}
	if len(onlyLite)+len(onlyPG) > 0 {
		t.Errorf("the schemas differ:\n  only in SQLite: %s\n  only in PostgreSQL: %s",
			strings.Join(onlyLite, ", "), strings.Join(onlyPG, ", "))
	}
}
