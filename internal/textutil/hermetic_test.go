package textutil

import (
	"os"
	"testing"

	"clapper/internal/testenv"
)

// TestMain runs the package's tests on a home, config and data of their
// own: never the caller's CLAPPER_*, HOME or XDG_* folders.
func TestMain(m *testing.M) {
	cleanup := testenv.Isolate()
	code := m.Run()
	cleanup()
	os.Exit(code)
}
