package studio_test

import (
	"os"
	"testing"

	"clapper/internal/pgtest"
)

// TestMain stops the throwaway PostgreSQL the team store's tests started.
func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}
