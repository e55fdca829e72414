package api

import (
	"testing"
	"time"
)

// The default retry waits half a step to a whole one, the steps doubling
// from 0.5 s to at most 8 s.
func TestDefaultRetrySteps(t *testing.T) {
	for _, c := range []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{1, 0, 250 * time.Millisecond},
		{1, 0.5, 375 * time.Millisecond},
		{2, 0, 500 * time.Millisecond},
		{5, 0, 4 * time.Second},
		{6, 0, 4 * time.Second}, // 16 s capped at 8 s
		{6, 0.5, 6 * time.Second},
		{80, 0, 4 * time.Second}, // the shift overflows: still the cap
	} {
		p := DefaultRetry
		p.Jitter = func() float64 { return c.jitter }
		if got := p.Backoff(c.attempt, 0); got != c.want {
			t.Errorf("attempt %d, jitter %v: wait %v, want %v", c.attempt, c.jitter, got, c.want)
		}
	}
}

// A server's Retry-After is waited as asked up to MaxRetryAfter, which is
// itself waited; a longer one is not waited at all (-1). Without a
// MaxRetryAfter any Retry-After is waited.
func TestRetryAfterUpToTheMax(t *testing.T) {
	capped := RetryPolicy{Attempts: 4, Base: time.Second, Max: 8 * time.Second, MaxRetryAfter: 30 * time.Second}
	for _, c := range []struct {
		p          RetryPolicy
		retryAfter time.Duration
		want       time.Duration
	}{
		{capped, 30 * time.Second, 30 * time.Second},
		{capped, 30*time.Second + time.Millisecond, -1},
		{RetryPolicy{Attempts: 4, Base: time.Second, Max: 8 * time.Second}, time.Hour, time.Hour},
		{DefaultRetry, 30 * time.Second, 30 * time.Second},
		{DefaultRetry, 31 * time.Second, -1},
	} {
		if got := c.p.Backoff(1, c.retryAfter); got != c.want {
			t.Errorf("MaxRetryAfter %v, Retry-After %v: wait %v, want %v", c.p.MaxRetryAfter, c.retryAfter, got, c.want)
		}
	}
}

// A policy without a base step waits its cap, never zero.
func TestRetryWithoutABaseWaitsTheCap(t *testing.T) {
	p := RetryPolicy{Attempts: 3, Max: time.Second, Jitter: func() float64 { return 0 }}
	if got := p.Backoff(1, 0); got != 500*time.Millisecond {
		t.Errorf("wait %v, want half the 1 s cap", got)
	}
}
