package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One clock: studio, track, history and cli read the time through their
// injectable clocks, so every period, expiry and reuse can be tested. The
// wall clock is read only as a clock's default (a line that returns it),
// and for the deadlines of real waits on a lock (a line that names a
// deadline); any other time.Now() fails here, naming where it is.
func TestOneClock(t *testing.T) {
	for _, pkg := range []string{"studio", "track", "history", "cli"} {
		files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(data), "\n") {
				code := strings.TrimSpace(line)
				if !strings.Contains(code, "time.Now()") || strings.HasPrefix(code, "//") {
					continue
				}
				if strings.HasPrefix(code, "return time.Now()") || strings.Contains(code, "wallClock) Now()") || strings.Contains(code, "deadline") {
					continue
				}
				t.Errorf("%s:%d reads the wall clock outside a clock: %s", f, i+1, code)
			}
		}
	}
}
