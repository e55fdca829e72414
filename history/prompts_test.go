package history

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"clapper/api"
	"clapper/record"
)

func promptTexts(ps []record.Prompt) []string {
	var out []string
	for _, p := range ps {
		text := p.Text
		if p.Starred {
			text = "★" + text
		}
		out = append(out, text)
	}
	return out
}

func searchPrompts(t *testing.T, s *Store, q record.PromptQuery) []string {
	t.Helper()
	ps, err := s.SearchPrompts(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return promptTexts(ps)
}

// Every request recorded is remembered by its prompt (or speech text),
// once per operation, newest use first; fuzzy patterns narrow it.
func TestPromptsRememberedNewestFirst(t *testing.T) {
	s, clk := newStore(t)
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	seed(t, s, clk, []row{
		{op: api.OpText2Video, prompt: "a red fox in snow", at: t0},
		{op: api.OpText2Video, prompt: "a blue whale", at: t0.Add(time.Minute)},
		{op: api.OpImg2Video, prompt: "a red kite", at: t0.Add(2 * time.Minute)},
		{op: api.OpText2Video, prompt: "a red fox in snow", at: t0.Add(3 * time.Minute)}, // sent again
		{op: api.OpText2Video, prompt: "   ", at: t0.Add(4 * time.Minute)},               // nothing typed
	})
	clk.Set(t0.Add(5 * time.Minute))
	if _, err := s.BeginSubmit(context.Background(), record.Intent{Operation: api.OpAudioTTS,
		Body: []byte(`{"text":"Hello there","voice_id":"v1"}`)}); err != nil {
		t.Fatal(err)
	}
	if got, want := searchPrompts(t, s, record.PromptQuery{Operation: api.OpText2Video}), []string{"a red fox in snow", "a blue whale"}; !slices.Equal(got, want) {
		t.Fatalf("text2video prompts %q, want %q", got, want)
	}
	if got, want := searchPrompts(t, s, record.PromptQuery{}), []string{"Hello there", "a red fox in snow", "a red kite", "a blue whale"}; !slices.Equal(got, want) {
		t.Fatalf("all prompts %q, want %q", got, want)
	}
	// Fuzzy: the characters in order, spaces and case aside.
	if got, want := searchPrompts(t, s, record.PromptQuery{Pattern: "RD Kt"}), []string{"a red kite"}; !slices.Equal(got, want) {
		t.Fatalf("fuzzy RD Kt: %q, want %q", got, want)
	}
	if got := searchPrompts(t, s, record.PromptQuery{Pattern: "kite red"}); len(got) != 0 {
		t.Fatalf("out of order must not match: %q", got)
	}
	if got := searchPrompts(t, s, record.PromptQuery{Pattern: "hlo"}); !slices.Equal(got, []string{"Hello there"}) {
		t.Fatalf("a speech text is remembered as a prompt: %q", got)
	}
	if got := searchPrompts(t, s, record.PromptQuery{Limit: 2}); len(got) != 2 {
		t.Fatalf("limit 2 answered %q", got)
	}
}

// A star puts a prompt first in every search that matches it, and stays
// across reopening; taking it away puts it back in its place.
func TestStarredPromptsFirst(t *testing.T) {
	s, clk := newStore(t)
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	seed(t, s, clk, []row{
		{op: api.OpText2Video, prompt: "old favourite", at: t0},
		{op: api.OpImg2Video, prompt: "old favourite", at: t0.Add(time.Minute)},
		{op: api.OpText2Video, prompt: "newer one", at: t0.Add(2 * time.Minute)},
	})
	ctx := context.Background()
	if err := s.StarPrompt(ctx, "old favourite", true, t0); err != nil {
		t.Fatal(err)
	}
	if got, want := searchPrompts(t, s, record.PromptQuery{Operation: api.OpText2Video}), []string{"★old favourite", "newer one"}; !slices.Equal(got, want) {
		t.Fatalf("starred first: %q, want %q", got, want)
	}
	// Across operations, a text used twice shows once, with its star.
	if got, want := searchPrompts(t, s, record.PromptQuery{}), []string{"★old favourite", "newer one"}; !slices.Equal(got, want) {
		t.Fatalf("all: %q, want %q", got, want)
	}
	// A star never brings a prompt the pattern does not match.
	if got := searchPrompts(t, s, record.PromptQuery{Pattern: "newer"}); !slices.Equal(got, []string{"newer one"}) {
		t.Fatalf("pattern newer: %q", got)
	}
	if err := s.StarPrompt(ctx, "old favourite", false, t0); err != nil {
		t.Fatal(err)
	}
	if got, want := searchPrompts(t, s, record.PromptQuery{Operation: api.OpText2Video}), []string{"newer one", "old favourite"}; !slices.Equal(got, want) {
		t.Fatalf("unstarred: %q, want %q", got, want)
	}
}

// GLOB's own characters typed in a pattern are matched as themselves.
func TestPromptPatternWithGlobCharacters(t *testing.T) {
	s, clk := newStore(t)
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	seed(t, s, clk, []row{
		{op: api.OpText2Video, prompt: "what? [wide] shot*", at: t0},
		{op: api.OpText2Video, prompt: "what a wide shot", at: t0.Add(time.Minute)},
	})
	for _, pattern := range []string{"?", "[wide]", "t*"} {
		if got := searchPrompts(t, s, record.PromptQuery{Pattern: pattern}); !slices.Equal(got, []string{"what? [wide] shot*"}) {
			t.Errorf("pattern %q: %q", pattern, got)
		}
	}
}

// The migration remembers the prompts of tasks recorded before it.
func TestPromptsBackfilledFromEarlierTasks(t *testing.T) {
	sqliteOnly(t) // PostgreSQL's history began with the prompts table
	s, _ := newStore(t)
	ctx := context.Background()
	if _, err := s.w.ExecContext(ctx, `DELETE FROM prompts`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO tasks (operation, state, request, created_at, updated_at)
		VALUES ('text2video', 'success', '{"prompt":"from before"}', 1, 1),
		       ('text2video', 'success', 'not json', 2, 2)`); err != nil {
		t.Fatal(err)
	}
	var backfill string
	for _, m := range migrations {
		if strings.Contains(m, "CREATE TABLE prompts") {
			backfill = m
		}
	}
	start := strings.Index(backfill, "INSERT INTO prompts (operation, text, folded, chars, used_at)\n    SELECT")
	end := strings.Index(backfill[start:], ";")
	if start < 0 || end < 0 {
		t.Fatal("the migration's backfill is not found")
	}
	if _, err := s.w.ExecContext(ctx, backfill[start:start+end]); err != nil {
		t.Fatal(err)
	}
	if got := searchPrompts(t, s, record.PromptQuery{}); !slices.Equal(got, []string{"from before"}) {
		t.Fatalf("backfilled %q", got)
	}
}
