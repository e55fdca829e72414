package history

import (
	"clapper/record"
	"context"
	"fmt"
	"strings"
	"time"
)

// DefaultPromptLimit is the number of prompts a search answers with when
// PromptQuery.Limit is zero: more than a screen shows.
const DefaultPromptLimit = 100

// SearchPrompts answers with earlier prompts that match q: the starred
// ones first, then the rest, each group newest first. It reads the
// trigger-kept prompts table in its used_at order and
// stops once the page is full, so a common pattern costs a few rows; one
// that matches nothing walks an index once, mostly testing one integer a
// row (see the migration's chars).
func (s *Store) SearchPrompts(ctx context.Context, q record.PromptQuery) ([]record.Prompt, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultPromptLimit
	}
	pattern, chars := fuzzyPattern(q.Pattern, false), charMask(q.Pattern)
	glob := "GLOB ?1"
	if s.d.postgres {
		// PostgreSQL has no GLOB: the same pattern as LIKE.
		pattern, glob = fuzzyPattern(q.Pattern, true), `LIKE ?1 ESCAPE '\'`
	}
	var out []record.Prompt
	err := s.read(ctx, func(tx *dbTx) error {
		starredQuery := `SELECT p.text, p.operation, p.used_at FROM prompt_stars s
			CROSS JOIN prompts p ON p.text = s.text
			WHERE p.chars & ?3 = ?3 AND p.folded ` + glob + ` AND (?2 = '' OR p.operation = ?2)
			ORDER BY p.used_at DESC`
		restQuery := `SELECT text, operation, used_at FROM prompts INDEXED BY prompts_by_use
			WHERE chars & ?3 = ?3 AND folded ` + glob + ` AND ?2 = '' ORDER BY used_at DESC`
		if q.Operation != "" {
			restQuery = `SELECT text, operation, used_at FROM prompts INDEXED BY prompts_by_operation
				WHERE operation = ?2 AND chars & ?3 = ?3 AND folded ` + glob + ` ORDER BY used_at DESC`
		}
		seen := map[string]bool{}
		collect := func(query string, starred bool) error {
			if len(out) >= limit {
				return nil
			}
			rows, err := tx.QueryContext(ctx, query, pattern, string(q.Operation), chars)
			if err != nil {
				return fmt.Errorf("history: prompts: %w", err)
			}
			defer rows.Close()
			for rows.Next() {
				var (
					p  record.Prompt
					at int64
				)
				if err := rows.Scan(&p.Text, &p.Operation, &at); err != nil {
					return fmt.Errorf("history: prompts: %w", err)
				}
				if seen[p.Text] {
					continue // starred, or sent by another operation too
				}
				seen[p.Text] = true
				p.UsedAt, p.Starred = fromMS(at), starred
				if out = append(out, p); len(out) >= limit {
					return nil
				}
			}
			return rows.Err()
		}
		if err := collect(starredQuery, true); err != nil {
			return err
		}
		// The starred texts are few: seen skips them in the walk of the rest.
		return collect(restQuery, false)
	})
	return out, err
}

// StarPrompt stars a prompt's text (on) or takes its star away.
func (s *Store) StarPrompt(ctx context.Context, text string, on bool, at time.Time) error {
	return s.write(ctx, func(tx *dbTx) error {
		var err error
		if on {
			_, err = tx.ExecContext(ctx, `INSERT INTO prompt_stars (text, starred_at) VALUES (?, ?)
				ON CONFLICT (text) DO NOTHING`, text, ms(at))
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM prompt_stars WHERE text = ?`, text)
		}
		if err != nil {
			return fmt.Errorf("history: star: %w", err)
		}
		return nil
	})
}

// fuzzyPattern turns a typed pattern into one over the folded text: every
// character in order, anything between; a GLOB (SQLite), or with like a
// LIKE escaped with a backslash (PostgreSQL has no GLOB). The pattern
// language's own characters are matched literally; only ASCII letters are
// folded, as SQLite's lower() folds the stored text.
func fuzzyPattern(pattern string, like bool) string {
	wild, literal := "*", func(r rune) string { return "[" + string(r) + "]" }
	special := "*?["
	if like {
		wild, literal, special = "%", func(r rune) string { return `\` + string(r) }, `%_\`
	}
	var b strings.Builder
	b.WriteString(wild)
	for _, r := range pattern {
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			continue
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case strings.ContainsRune(special, r):
			b.WriteString(literal(r))
		default:
			b.WriteRune(r)
		}
		b.WriteString(wild)
	}
	return b.String()
}

// charMask has the bit of each ASCII letter and digit of the pattern, as
// the prompts table's chars column has those of its text: a is bit 0, z
// bit 25, 0 bit 26, 9 bit 35.
func charMask(pattern string) int64 {
	var m int64
	for _, r := range pattern {
		switch {
		case r >= 'A' && r <= 'Z':
			m |= 1 << (r - 'A')
		case r >= 'a' && r <= 'z':
			m |= 1 << (r - 'a')
		case r >= '0' && r <= '9':
			m |= 1 << (26 + r - '0')
		}
	}
	return m
}
