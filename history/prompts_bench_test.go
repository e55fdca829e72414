package history

import (
	"context"
	"testing"

	"clapper/api"
	"clapper/record"
)

// BenchmarkPromptSearch is the New page's ctrl+p over 100,000 tasks (about
// as many distinct prompts): opening the search (no pattern), a pattern
// typed, and patterns nothing (or almost nothing) matches, which walk every
// prompt of the operation (or of all). The aim is under 10 ms.
func BenchmarkPromptSearch(b *testing.B) {
	s := openFixture(b)
	ctx := context.Background()
	if err := s.StarPrompt(ctx, "a neon robot", true, t0); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    record.PromptQuery
	}{
		{"open", record.PromptQuery{Operation: api.OpText2Video}},
		{"typed", record.PromptQuery{Operation: api.OpText2Video, Pattern: "neon rbt"}},
		{"rare", record.PromptQuery{Operation: api.OpText2Video, Pattern: "whale whale kite storm"}},
		{"reversed", record.PromptQuery{Operation: api.OpText2Video, Pattern: "tac esirnus tobor"}},
		{"none", record.PromptQuery{Operation: api.OpText2Video, Pattern: "qqq"}},
		// A phrase no prompt holds, with a letter (v) none has: the
		// letter bits turn every row away without a match.
		{"none-v", record.PromptQuery{Operation: api.OpText2Video, Pattern: "snow storm over a neon desert at sunrise"}},
		{"all-typed", record.PromptQuery{Pattern: "neon rbt"}},
		{"all-none", record.PromptQuery{Pattern: "qqq"}},
		{"all-none-v", record.PromptQuery{Pattern: "snow storm over a neon desert at sunrise"}},
		// The worst case known: a long pattern of letters every prompt has,
		// in an order almost none has, over every operation: each row's
		// text is matched in full.
		{"all-reversed", record.PromptQuery{Pattern: "tac esirnus tobor"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.SearchPrompts(ctx, c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
