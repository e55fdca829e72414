package mcp

import (
	"encoding/json"
	"os"
	"testing"

	"clapper/internal/testenv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain runs the package's tests on a home, config and data of their
// own: never the caller's CLAPPER_*, HOME or XDG_* folders.
func TestMain(m *testing.M) {
	cleanup := testenv.Isolate()
	warmEncoders()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// warmEncoders encodes once, before any test, the SDK's subscription
// acknowledgement: in one make test of four under load the race detector
// reported two sessions' first encodings of it at once inside
// encoding/json's type cache (typeFields against structEncoder.encode, no
// frame of ours or of shared state), which 40 runs of the test alone did
// not repeat. Two clients subscribing at once is what the tests are for;
// the standard library's first-use cache is not.
func warmEncoders() {
	_, _ = json.Marshal(&sdk.SubscriptionsAcknowledgedParams{})
}
