package history

import (
	"context"
	"testing"

	"clapper/api"
)

// BenchmarkPromptSearch is the New page's ctrl+p over 100,000 tasks (about
// as many distinct prompts): opening the search (no pattern), a pattern
// typed, and the worst case, a pattern nothing matches, which reads every
// prompt of the operation (or of all). Each must answer in under 10 ms.
func BenchmarkPromptSearch(b *testing.B) {
	s := openFixture(b)
	ctx := context.Background()
	if err := s.StarPrompt(ctx, "a neon robot", true, t0); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    PromptQuery
	}{
		{"open", PromptQuery{Operation: api.OpText2Video}},
		{"typed", PromptQuery{Operation: api.OpText2Video, Pattern: "neon rbt"}},
		{"rare", PromptQuery{Operation: api.OpText2Video, Pattern: "whale whale kite storm"}},
		{"none", PromptQuery{Operation: api.OpText2Video, Pattern: "qqq"}},
		// Letters most prompts hold, in an order none has: every row is
		// matched in full.
		{"none-common", PromptQuery{Operation: api.OpText2Video, Pattern: "snow storm over a neon desert at sunrise"}},
		{"all-typed", PromptQuery{Pattern: "neon rbt"}},
		{"all-none", PromptQuery{Pattern: "qqq"}},
		{"all-none-common", PromptQuery{Pattern: "snow storm over a neon desert at sunrise"}},
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
