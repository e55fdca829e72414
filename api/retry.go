package api

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy bounds how reads are retried after network errors, 5xx and 429.
type RetryPolicy struct {
	Attempts int           // total attempts, the first included
	Base     time.Duration // first backoff step
	Max      time.Duration // cap of one backoff step
	// MaxRetryAfter is the longest server-requested pause waited in-line;
	// a longer one ends the request with the 429 so the caller reschedules.
	MaxRetryAfter time.Duration
	// Jitter returns a number in [0,1); nil means math/rand.
	Jitter func() float64
}

// DefaultRetry: four attempts, 0.5 s doubling to 8 s, full jitter.
var DefaultRetry = RetryPolicy{Attempts: 4, Base: 500 * time.Millisecond, Max: 8 * time.Second, MaxRetryAfter: 30 * time.Second}

// Backoff is the pause before attempt+1. retryAfter, when positive, is the
// server's request and wins over the computed step; -1 means do not retry.
func (p RetryPolicy) Backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		if p.MaxRetryAfter > 0 && retryAfter > p.MaxRetryAfter {
			return -1
		}
		return retryAfter
	}
	step := p.Base << (attempt - 1)
	if step <= 0 || step > p.Max {
		step = p.Max
	}
	j := p.Jitter
	if j == nil {
		j = rand.Float64
	}
	// Full jitter, floored at half a step so retries never bunch at zero.
	return step/2 + time.Duration(j()*float64(step/2))
}

// ParseRetryAfter reads a Retry-After header given in seconds or as an HTTP
// date; zero when absent or unreadable.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
