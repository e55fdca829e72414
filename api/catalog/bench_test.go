package catalog

import (
	"fmt"
	"strings"
	"testing"

	"clapper/api"
)

// Forms look models up on every frame and Validate looks up every model
// of an operation for an unknown field: a lookup must not rebuild the
// layers each time.
func BenchmarkLookup(b *testing.B) {
	for b.Loop() {
		if _, err := Lookup(api.OpReference2Video, "svcq2-pro"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateWithUnknownField(b *testing.B) {
	req := map[string]any{"model": "svcq2-pro", "images": []any{"https://e.com/a.png"}, "prompt": "p", "mood": "calm"}
	for b.Loop() {
		Validate(api.OpImg2Video, req)
	}
}

// largeCatalog is a catalog of n text2video models, each like svcq1 with a
// changed field, or (chain) each like the one before.
func largeCatalog(n int, chain bool) []byte {
	var b strings.Builder
	b.WriteString(`[{"operation":"text2video","models":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		like := "svcq1"
		if chain && i > 0 {
			like = fmt.Sprintf("m%d", i-1)
		}
		fmt.Fprintf(&b, `{"model":"m%d","like":%q,"fields":[{"name":"duration","max":%d}]}`, i, like, 10+i%5)
	}
	b.WriteString(`]}]`)
	return []byte(b.String())
}

// Loading a user catalog costs time in proportion to its size (trust round
// two: 3,000 models took 14 s, a like chain of 2,000 never finished;
// target: under 0.5 s each), and so does looking up every model of it.
func BenchmarkLoadUserLarge(b *testing.B) {
	for _, c := range []struct {
		name  string
		n     int
		chain bool
	}{{"3000-models", 3000, false}, {"chain-2000", 2000, true}} {
		data := largeCatalog(c.n, c.chain)
		b.Run(c.name, func(b *testing.B) {
			b.Cleanup(ResetUser)
			for b.Loop() {
				if err := LoadUser(data, "c.json"); err != nil {
					b.Fatal(err)
				}
				for _, m := range Models(api.OpText2Video) {
					if _, err := Lookup(api.OpText2Video, m); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
