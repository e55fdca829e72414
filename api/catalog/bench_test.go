package catalog

import (
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
