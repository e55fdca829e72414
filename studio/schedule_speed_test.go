package studio

import (
	"context"
	"testing"

	"clapper/api/sandbox"
)

// The embedded sandbox tells the watcher its speed: at --sandbox-speed 60
// the schedule expects tasks 60 times sooner; at the default, real time.
func TestWatcherKnowsTheSandboxSpeed(t *testing.T) {
	for _, speed := range []float64{60, 1} {
		cfg := Config{DataDir: t.TempDir(), Timeout: DefaultTimeout, SandboxSpeed: speed, RequestBudget: 4}
		s, err := Open(context.Background(), cfg, Options{SendOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if s.schedule == nil || s.schedule.Speed != speed {
			t.Errorf("sandbox speed %g: the watcher's schedule runs at %v", speed, s.schedule)
		}
		s.Close()
	}
	// Sandbox settings of a test (a clock, a seed) keep the configured
	// speed; a speed of their own wins.
	for _, c := range []struct{ given, want float64 }{{0, 60}, {120, 120}} {
		cfg := Config{DataDir: t.TempDir(), Timeout: DefaultTimeout, SandboxSpeed: 60, RequestBudget: 4}
		s, err := Open(context.Background(), cfg, Options{SendOnly: true, Sandbox: &sandbox.Config{Seed: 1, Speed: c.given}})
		if err != nil {
			t.Fatal(err)
		}
		if s.schedule.Speed != c.want {
			t.Errorf("sandbox speed 60, the sandbox's own %g: the watcher's schedule runs at %g, want %g", c.given, s.schedule.Speed, c.want)
		}
		s.Close()
	}
}
