package studio

import (
	"encoding/json"
	"strings"
	"testing"

	"clapper/api"
	"clapper/api/catalog"
)

// Seeds run from 1 to 2^31-1: 0 would mean random, and every model reads
// 31 bits.
func TestSeedVariationsStayInThirtyOneBits(t *testing.T) {
	draws := []int64{1<<31 - 2, 0} // the largest draw, then the smallest
	var asked []int64
	defer func(d func(int64) int64) { drawSeed = d }(drawSeed)
	drawSeed = func(n int64) int64 {
		asked = append(asked, n)
		d := draws[0]
		draws = draws[1:]
		return d
	}
	reqs, err := SeedVariations(api.OpReference2Image, map[string]any{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].Label != "seed=2147483647" || reqs[1].Label != "seed=1" || reqs[1].Body["seed"] != json.Number("1") {
		t.Errorf("seeds %q, %q (%v), want 2147483647 and 1", reqs[0].Label, reqs[1].Label, reqs[1].Body["seed"])
	}
	if len(asked) != 2 || asked[0] != 1<<31-1 {
		t.Errorf("draws asked in [0, %v), want [0, 2^31-1)", asked)
	}
}

// Between 2 and 50 versions, for seeds and for values alike.
func TestVariationCountsAtTheirBounds(t *testing.T) {
	body := map[string]any{"model": "svcq2", "prompt": "a lighthouse"}
	for n, ok := range map[int]bool{1: false, 2: true, 50: true, 51: false} {
		_, err := SeedVariations(api.OpReference2Image, body, n)
		if (err == nil) != ok {
			t.Errorf("%d seed versions: %v", n, err)
		}
		values := make([]string, n)
		for i := range values {
			values[i] = "a lighthouse " + strings.Repeat("!", i)
		}
		reqs, err := ValueVariations(Config{}, api.OpReference2Image, body, "prompt", values, nil)
		if (err == nil) != ok {
			t.Errorf("%d values: %v", n, err)
		}
		for i, r := range reqs {
			if r.Line != i+1 {
				t.Errorf("value version %d is numbered %d", i+1, r.Line)
			}
		}
	}
}

// A whole number is typed digit for digit, past what a float holds.
func TestTypeTextKeepsEveryDigit(t *testing.T) {
	f := catalog.Field{Name: "seed", Kind: catalog.KindInt}
	if got := typeText(f, " 9007199254740993 "); got != json.Number("9007199254740993") {
		t.Errorf("typeText = %v", got)
	}
	if got := typeText(f, "2.5"); got != json.Number("2.5") {
		t.Errorf("typeText of a fraction = %v", got)
	}
}
