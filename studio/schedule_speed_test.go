package studio

import (
	"context"
	"testing"
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
}
