package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"clapper/api"
	"clapper/api/catalog"
)

// BenchmarkListTools is tools/list with the full catalog (nineteen
// generated create_* schemas and twelve tools) over the in-memory transport.
func BenchmarkListTools(b *testing.B) {
	r := newRig(b, rigOpts{})
	for b.Loop() {
		res, err := r.cs.ListTools(b.Context(), nil)
		if err != nil || len(res.Tools) != 24 {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewServer builds every tool and schema from the catalog, as
// clapper mcp does once at start.
func BenchmarkNewServer(b *testing.B) {
	r := newRig(b, rigOpts{})
	for b.Loop() {
		if _, err := New(r.st, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

var benchRequest = map[string]any{"model": "svcq3-turbo", "prompt": "a red fox in snow", "duration": 8}

// BenchmarkCreateDirect is what `clapper create` does once its process and
// studio are up: check, normalise and send through the tracker.
func BenchmarkCreateDirect(b *testing.B) {
	r := newRig(b, rigOpts{productionWatcher: true})
	for b.Loop() {
		body := map[string]any{}
		for k, v := range benchRequest {
			body[k] = v
		}
		if errs := catalog.Validate(api.OpText2Video, body); errs != nil {
			b.Fatal(errs)
		}
		if _, err := r.st.Submit(b.Context(), api.OpText2Video, catalog.Normalize(api.OpText2Video, body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateTool is create_text2video over the in-memory transport:
// the same work plus the protocol, the price and the cap check.
func BenchmarkCreateTool(b *testing.B) {
	r := newRig(b, rigOpts{cap: 1 << 40, productionWatcher: true})
	for b.Loop() {
		res, err := r.cs.CallTool(b.Context(), &sdk.CallToolParams{Name: "create_text2video", Arguments: benchRequest})
		if err != nil || res.IsError {
			b.Fatal(err, text(res))
		}
	}
}
