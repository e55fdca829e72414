package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"clapper/api"
)

// heldState is a sandbox on a state file that already holds n finished
// tasks, built in one save (copies of one real task).
func heldState(b *testing.B, n int) (*Server, *FakeClock) {
	b.Helper()
	clock := NewFakeClock(t0)
	srv, err := New(Config{Clock: clock, Seed: 1, StatePath: filepath.Join(b.TempDir(), "sandbox.json")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	create(b, srv)
	clock.Advance(time.Hour)
	err = srv.withState(func(st *state, now time.Time) error {
		tmpl := *st.Units[0]
		for i := range n - 1 {
			u := tmpl
			st.Seq++
			u.ID, u.Seq = fmt.Sprintf("held-%06d", i), st.Seq
			st.add(&u)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	// The journal starts empty, as after a compaction.
	if err := srv.withState(func(st *state, _ time.Time) error { return srv.store.snapshot(st) }); err != nil {
		b.Fatal(err)
	}
	return srv, clock
}

func create(b *testing.B, srv *Server) {
	body, _ := json.Marshal(samples[api.OpText2Video])
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, api.OpText2Video.Path(), bytes.NewReader(body))
	req.Header.Set("Authorization", "Token "+testToken)
	srv.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("create: HTTP %d %s", w.Code, w.Body.Bytes())
	}
}

// One creation saved to a state file holding 100, 3,000 and 20,000 finished
// tasks. Target: flat, within 2x from 100 to 20,000.
func BenchmarkStateCreate(b *testing.B) {
	for _, n := range []int{100, 3_000, 20_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			srv, clock := heldState(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				create(b, srv)
				clock.Advance(10 * time.Millisecond)
			}
		})
	}
}
