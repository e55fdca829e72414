package catalog

import (
	"strings"
	"testing"
)

// Mutants that lived through the first `make mutate` of this package: each
// case pins the edge the mutant moved.

// A voice reference may be 256 characters long, not one more.
func TestVoiceRefLength(t *testing.T) {
	if err := checkVoiceRef(strings.Repeat("v", 256)); err != nil {
		t.Errorf("256 characters refused: %v", err)
	}
	if err := checkVoiceRef(strings.Repeat("v", 257)); err == nil {
		t.Error("257 characters accepted")
	}
}

// A ratio's sides are positive whole numbers, said as such (not as a ratio
// outside the range); 1:4 and 4:1 are inside, 1:5 and 5:1 outside.
func TestParseRatioEdges(t *testing.T) {
	for _, s := range []string{"0:1", "1:0", "-1:2", "2:-1"} {
		if _, err := ParseRatio(s); err == nil || !strings.Contains(err.Error(), "positive whole numbers") {
			t.Errorf("%s: %v; want a refusal naming positive whole numbers", s, err)
		}
	}
	for s, want := range map[string]float64{"1:4": 0.25, "4:1": 4} {
		if r, err := ParseRatio(s); err != nil || r != want {
			t.Errorf("%s: %v %v; want %v", s, r, err, want)
		}
	}
	for _, s := range []string{"1:5", "5:1", "100:401", "401:100"} {
		if _, err := ParseRatio(s); err == nil || !strings.Contains(err.Error(), "outside 1:4 to 4:1") {
			t.Errorf("%s: %v; want outside 1:4 to 4:1", s, err)
		}
	}
}

// Where a misplaced pause stands decides what the message says: after
// another pause, or at the very start; a text without pauses is never
// refused for what it ends with.
func TestPausePlacementMessages(t *testing.T) {
	if _, err := SplitPauses("one <#1#><#2#> two", PausesTTS); err == nil || !strings.Contains(err.Error(), "follows another pause") {
		t.Errorf("two pauses in a row: %v", err)
	}
	if _, err := SplitPauses("<#1#> starts", PausesTTS); err == nil || !strings.Contains(err.Error(), "not at the start") {
		t.Errorf("a pause first: %v", err)
	}
	for _, text := range []string{"", "...", "hello"} {
		segs, err := SplitPauses(text, PausesTTS)
		if err != nil || len(segs) != 1 || segs[0].Text != text {
			t.Errorf("%q without pauses: %v %v", text, segs, err)
		}
	}
}
