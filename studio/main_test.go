package studio_test

import (
	"os"
	"testing"

	"clapper/internal/pgtest"
	"clapper/internal/testenv"
)

// TestMain runs the tests on a home, config and data of their own (never
// the caller's CLAPPER_*, HOME or XDG_* folders), and stops the throwaway
// PostgreSQL the team store's tests started.
func TestMain(m *testing.M) {
	cleanup := testenv.Isolate()
	code := m.Run()
	pgtest.Stop()
	cleanup()
	os.Exit(code)
}
