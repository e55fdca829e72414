package studio

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"clapper/api/sandbox"
	"clapper/internal/fsutil"
)

// The embedded sandbox signs result URLs with its own address, and history
// keeps them: a sandbox on a new port each run would leave every earlier
// preview and URL dead. So its port is kept in the data directory and
// taken again while it is free. When it is busy (another clapper serves it,
// whose URLs it keeps alive) this run takes any free port and leaves the
// file as it is.

// SandboxPortPath is the file that remembers the embedded sandbox's port.
func (c Config) SandboxPortPath() string { return filepath.Join(c.DataDir, "sandbox.port") }

// listenSandbox serves the embedded sandbox on the remembered port, or on a
// free one that it then remembers when none was.
func listenSandbox(ctx context.Context, cfg Config, sc sandbox.Config) (string, func() error, error) {
	path := cfg.SandboxPortPath()
	if port, ok := readPort(path); ok {
		if base, _, stop, err := sandbox.Listen(ctx, "127.0.0.1:"+strconv.Itoa(port), sc); err == nil {
			return base, stop, nil
		}
		base, _, stop, err := sandbox.Listen(ctx, "", sc)
		return base, stop, err
	}
	base, _, stop, err := sandbox.Listen(ctx, "", sc)
	if err != nil {
		return "", nil, err
	}
	if i := strings.LastIndexByte(base, ':'); i >= 0 && cfg.DataDir != "" {
		// Remembering is a convenience: a failure costs only the next
		// run's old URLs, which a re-read signs anew.
		_ = fsutil.WriteFile(path, []byte(strings.TrimRight(base[i+1:], "/")+"\n"), 0o600)
	}
	return base, stop, nil
}

// readPort reads a remembered port; a file that is not one is ignored.
func readPort(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return p, err == nil && p > 0 && p < 65536
}
