package api

import (
	"strings"
	"testing"
)

// Every pair of states, the recorded one down the side and the answer
// across: Y the answer is taken, . it is stale. "paused" stands for any word
// the spec does not name, "" for a task whose state is not known yet.
func TestSupersedesEveryPair(t *testing.T) {
	states := []string{"", "created", "queueing", "processing", "success", "failed", "cancelled", "canceled", "expired", "paused"}
	grid := `
	               ""  cre que pro suc fai can can exp pau
	""             Y   Y   Y   Y   Y   Y   Y   Y   Y   Y
	created        Y   Y   Y   Y   Y   Y   Y   Y   Y   Y
	queueing       .   .   Y   Y   Y   Y   Y   Y   Y   Y
	processing     .   .   .   Y   Y   Y   Y   Y   Y   Y
	success        .   .   .   .   Y   .   .   .   .   .
	failed         .   .   .   .   .   Y   .   .   .   .
	cancelled      .   .   .   .   .   .   Y   .   .   .
	canceled       .   .   .   .   .   .   .   Y   .   .
	expired        .   .   .   .   .   .   .   .   Y   .
	paused         Y   Y   Y   Y   Y   Y   Y   Y   Y   Y
	`
	rows := strings.Split(strings.TrimSpace(grid), "\n")[1:]
	if len(rows) != len(states) {
		t.Fatalf("the grid has %d rows for %d states", len(rows), len(states))
	}
	for i, row := range rows {
		cells := strings.Fields(row)[1:]
		if len(cells) != len(states) {
			t.Fatalf("row %q has %d cells", row, len(cells))
		}
		for j, c := range cells {
			current, next := states[i], states[j]
			if got, want := Supersedes(current, next), c == "Y"; got != want {
				t.Errorf("Supersedes(%q, %q) = %v, want %v", current, next, got, want)
			}
		}
	}
}

func TestStateRank(t *testing.T) {
	for state, want := range map[string]int{
		"": 0, StateCreated: 0, StateQueueing: 1, StateProcessing: 2,
		StateSuccess: 3, StateFailed: 3, "cancelled": 3, "canceled": 3, "expired": 3, "paused": -1,
	} {
		if got := StateRank(state); got != want {
			t.Errorf("StateRank(%q) = %d, want %d", state, got, want)
		}
	}
}
