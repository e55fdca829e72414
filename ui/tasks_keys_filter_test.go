package ui

import (
	"strings"
	"testing"
)

// s walks the state filter (all, in flight, succeeded, failed) and o the
// operations that have tasks (none stops on an empty list), each narrowing
// the rows on screen: "failed" holds the service's failures and the
// requests it refused.
func TestTasksStateAndOperationKeys(t *testing.T) {
	m, _ := newTestModel(t, 140, 40)
	rows := func() string { return strings.Join(strings.Split(screen(m), "\n")[4:], "\n") }
	for _, c := range []struct {
		key      string
		shown    []string
		notShown []string
	}{
		{"s", []string{"neon city", "whale"}, []string{"red fox", "lighthouse"}},
		{"s", []string{"red fox", "cat astronaut"}, []string{"whale", "lighthouse", "Hello there"}},
		{"s", []string{"lighthouse", "Hello there"}, []string{"red fox", "whale"}},
		{"s", []string{"red fox", "whale", "lighthouse"}, nil},
		{"o", []string{"lighthouse"}, []string{"red fox", "whale", "cat astronaut"}},
		{"o", []string{"red fox", "whale", "neon city"}, []string{"lighthouse", "cat astronaut"}},
		{"o", []string{"cat astronaut"}, []string{"red fox", "whale", "lighthouse"}},
	} {
		send(m, press(c.key))
		got := rows()
		for _, w := range c.shown {
			if !strings.Contains(got, w) {
				t.Errorf("after %s: %q is not shown:\n%s", c.key, w, screen(m))
			}
		}
		for _, w := range c.notShown {
			if strings.Contains(got, w) {
				t.Errorf("after %s: %q is shown:\n%s", c.key, w, screen(m))
			}
		}
	}
}

// e, t and x on a row say where they work instead of doing nothing.
func TestTasksDetailKeysSayWhereTheyWork(t *testing.T) {
	m, _ := newTestModel(t, 80, 24)
	for k, want := range map[string]string{"e": "e duplicates a task into New from its detail", "t": "t tags a task from its detail",
		"x": "x abandons a request whose answer never came"} {
		send(m, press(k))
		if !strings.Contains(screen(m), want) {
			t.Errorf("%s on a row: no %q:\n%s", k, want, screen(m))
		}
	}
}
