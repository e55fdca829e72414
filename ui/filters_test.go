package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"clapper/internal/textutil"
)

// Each filter word of the History page's search narrows the list and the
// totals line, typed by keys in the running program. The expected counts
// come from standardTasks (7 tasks; one on Nov 25, six on Nov 26).
func TestHistorySearchWordsFilterTheTotals(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	send(m, press("5"))
	for _, c := range []struct {
		query string
		want  int
	}{
		{"", 7},
		{"state:failed", 1},
		{"state:success", 2},
		{"op:text2video", 3},
		{"operation:img2video", 1},
		{"model:svcq3-turbo", 2},
		{"from:2026-11-26", 6},
		{"since:2026-11-26", 6},
		{"to:2026-11-25", 1},
		{"until:2026-11-25", 1},
		{"from:2026-11-25 to:2026-11-25", 1},
		{"whale", 1},
		{"fox snow", 1},
		{"state:success from:2026-11-26", 1},
		{"op:text2video model:svcq3-turbo", 1},
		{"STATE:FAILED", 1},
	} {
		t.Run(c.query, func(t *testing.T) {
			search(m, c.query)
			want := textutil.Plural(c.want, "task", "tasks") + " · "
			if got := screen(m); !strings.Contains(got, want) {
				t.Errorf("searching %q: the totals do not read %q:\n%s", c.query, want, firstLines(got, 4))
			}
		})
	}
	// A search by any word counts the credits of the tasks it finds.
	for query, want := range map[string]string{
		"model:svcq3-turbo": "40 credits spent on these",
		"op:text2video":     "200 credits spent on these",
		"state:failed":      "0 credits spent on these",
		"whale":             "credits spent on these",
	} {
		search(m, query)
		if got := screen(m); !strings.Contains(got, want) {
			t.Errorf("searching %q: the totals do not read %q:\n%s", query, want, firstLines(got, 4))
		}
	}
	// The credits spent follow the search's dates: 40 on Nov 25, 166 on
	// Nov 26 (6 + 40 + 120; the failed and refused tasks cost nothing).
	for query, want := range map[string]string{
		"from:2026-11-25 to:2026-11-25": "40 credits spent Nov 25 ",
		"from:2026-11-26 to:2026-11-26": "166 credits spent Nov 26 ",
		"from:2026-11-25 to:2026-11-26": "206 credits spent Nov 25–Nov 26",
	} {
		search(m, query)
		if got := screen(m); !strings.Contains(got, want) {
			t.Errorf("searching %q: the totals do not read %q:\n%s", query, want, firstLines(got, 4))
		}
	}
}

// A word the search cannot read is named with what is allowed, and the
// list is not filtered by half a query.
func TestHistorySearchRefusesUnreadableWords(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	send(m, press("5"))
	for query, want := range map[string]string{
		"from:yesterday":                "from:yesterday: give a date as YYYY-MM-DD",
		"to:26-11-2026":                 "to:26-11-2026: give a date as YYYY-MM-DD",
		"op:video":                      "op:video",
		"from:2026-11-26 to:2026-11-25": "from: is after to:",
	} {
		search(m, query)
		if got := screen(m); !strings.Contains(got, want) {
			t.Errorf("searching %q: no %q:\n%s", query, want, firstLines(got, 4))
		}
	}
}

// search types a new query into the History page's search, replacing the
// last one, and runs it. The keys before enter only edit the input; what
// they return is its cursor's blink, not waited for.
func search(m *Model, query string) {
	m.Update(press("/"))
	m.Update(ctrl('u'))
	if query != "" {
		m.Update(tea.PasteMsg{Content: query})
	}
	send(m, press("enter"))
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n") + fmt.Sprintf("\n… (%d lines)", strings.Count(s, "\n"))
}
