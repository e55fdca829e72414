package track

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// ranked agrees with counting by hand through random adds and removes,
// ties on creation time included.
func TestRankedCountsLikeAWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	var r ranked
	var in []*watched
	all := make([]*watched, 300)
	for i := range all {
		all[i] = &watched{id: fmt.Sprintf("t%03d", rng.IntN(1000)), created: t0.Add(time.Duration(rng.IntN(50)) * time.Second)}
	}
	for step := range 3000 {
		x := all[rng.IntN(len(all))]
		if i := slices.Index(in, x); i >= 0 {
			r.remove(x)
			in = slices.Delete(in, i, i+1)
		} else {
			r.add(x)
			in = append(in, x)
		}
		if r.root.count() != len(in) {
			t.Fatalf("step %d: %d held, want %d", step, r.root.count(), len(in))
		}
		probe := all[rng.IntN(len(all))]
		want := 0
		for _, o := range in {
			if o != probe && submittedBefore(o, probe) {
				want++
			}
		}
		if got := r.before(probe); got != want {
			t.Fatalf("step %d: %d before %s, want %d", step, got, probe.id, want)
		}
		var oldest *watched
		for _, o := range in {
			if o.id[len(o.id)-1]%2 == 0 && (oldest == nil || submittedBefore(o, oldest)) {
				oldest = o
			}
		}
		if got := r.first(func(o *watched) bool { return o.id[len(o.id)-1]%2 == 0 }); got != oldest {
			t.Fatalf("step %d: first even is %v, want %v", step, got, oldest)
		}
	}
}
