package sandbox

import (
	"clapper/api"
	"context"
	"sync"
	"time"
)

// Clock tells the sandbox the time. Everything the sandbox simulates (state
// changes, URL expiry, voice retention, callback retries) is measured on it.
type Clock interface{ Now() time.Time }

// sleeper is a Clock that can also wait; the slow-response fault waits on it
// so that a fake clock turns the wait into a jump instead of a real sleep.
type sleeper interface {
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error { return api.SleepContext(ctx, d) }

// FakeClock is a Clock that moves only when told to, for tests. It is safe
// for concurrent use. Create it with NewFakeClock.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a clock stopped at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d. Call Server.Advance afterwards to
// have the sandbox act on what became due (callbacks in particular).
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Sleep advances the clock by d instead of waiting, so that a slow response
// injected under a fake clock is visible as elapsed time without a real delay.
func (c *FakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}
