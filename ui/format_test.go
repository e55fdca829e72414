package ui

import (
	"testing"
	"time"
)

// A URL's time left reads in the largest whole unit, and at the instant it
// lapses it is expired, not "0s".
func TestTimeLeftLabels(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "expired"}, {0, "expired"}, {time.Second, "1s"}, {59 * time.Second, "59s"},
		{time.Minute, "1m"}, {59*time.Minute + 59*time.Second, "59m"}, {time.Hour, "1h00m"}, {25*time.Hour + 5*time.Minute, "25h05m"},
	} {
		if got := left(testNow, testNow.Add(c.d)); got != c.want {
			t.Errorf("%v left: %q, want %q", c.d, got, c.want)
		}
	}
	if got := left(testNow, time.Time{}); got != "" {
		t.Errorf("no expiry: %q", got)
	}
}
