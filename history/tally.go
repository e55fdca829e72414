package history

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strings"

	"modernc.org/sqlite"
)

// tally is one group of TotalsMatching's aggregate: the matches of a state,
// a day of the charts (-1: none) and a model, how many and what they cost.
type tally struct {
	State   string `json:"s"`
	Day     int    `json:"d"`
	Model   string `json:"m"`
	N       int    `json:"n"`
	Credits int64  `json:"c"`

	chartOnly bool // a group of the charts alone, not of the totals
}

// tallyFunc is SQLite's aggregate of TotalsMatching's groups, as
// clapper_tally(state, day, model, credits): their tallies in JSON.
// SQLite groups by sorting every row first (a GROUP BY of a day and a
// model is in no index's order), so its GROUP BY of a broad search cost
// twice the pass over the matches and a sort of them all; this keeps the
// groups, a few hundred, in a map as the rows pass. PostgreSQL's GROUP BY
// does that itself, in a hash table.
const tallyFunc = "clapper_tally"

func init() {
	err := sqlite.RegisterFunction(tallyFunc, &sqlite.FunctionImpl{
		NArgs: 4,
		// The arguments are read during Step only (keys copied on insert).
		VolatileArgs: true,
		MakeAggregate: func(sqlite.FunctionContext) (sqlite.AggregateFunction, error) {
			return &tallies{groups: map[tallyKey]*tally{}}, nil
		},
	})
	if err != nil {
		panic(fmt.Sprintf("history: registering %s: %v", tallyFunc, err))
	}
}

type tallyKey struct {
	state string
	day   int64
	model string
}

// tallies is one evaluation of clapper_tally.
type tallies struct {
	groups map[tallyKey]*tally
}

func (t *tallies) Step(_ *sqlite.FunctionContext, args []driver.Value) error {
	state, okState := args[0].(string)
	day, okDay := args[1].(int64)
	model, okModel := args[2].(string)
	credits, okCredits := args[3].(int64)
	if !okState || !okDay || !okModel || !okCredits {
		return fmt.Errorf("%s(%T, %T, %T, %T): want text, integer, text, integer", tallyFunc, args[0], args[1], args[2], args[3])
	}
	if g, ok := t.groups[tallyKey{state, day, model}]; ok {
		g.N++
		g.Credits += credits
		return nil
	}
	// The strings are SQLite's buffers (VolatileArgs): a kept key is a copy.
	state, model = strings.Clone(state), strings.Clone(model)
	t.groups[tallyKey{state, day, model}] = &tally{State: state, Day: int(day), Model: model, N: 1, Credits: credits}
	return nil
}

func (t *tallies) WindowValue(*sqlite.FunctionContext) (driver.Value, error) {
	out := make([]*tally, 0, len(t.groups))
	for _, g := range t.groups {
		out = append(out, g)
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// WindowInverse is for a window's rows leaving; clapper_tally is never a
// window function.
func (t *tallies) WindowInverse(*sqlite.FunctionContext, []driver.Value) error {
	return fmt.Errorf("%s is no window function", tallyFunc)
}

func (t *tallies) Final(*sqlite.FunctionContext) {}
