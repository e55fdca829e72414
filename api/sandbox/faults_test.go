package sandbox

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"clapper/api"
)

func TestInjectedFaults(t *testing.T) {
	h := newHarness(t, Config{Rate429: 0.2, Rate5xx: 0.1})
	counts := map[int]int{}
	retryAfter := 0
	for range 400 {
		status, hdr, raw := h.call(http.MethodGet, "/ent/v2/tasks/123/creations", nil, nil)
		counts[status]++
		switch status {
		case http.StatusTooManyRequests:
			rejection(t, status, hdr, raw, 429, api.ReasonTooManyRequests, "")
			if hdr.Get("Retry-After") != "" {
				retryAfter++
			}
		case http.StatusInternalServerError:
			rejection(t, status, hdr, raw, 500, api.ReasonInternalServiceFailure, "")
		case http.StatusNotFound:
		default:
			t.Fatalf("HTTP %d: %s", status, raw)
		}
	}
	if counts[429] < 50 || counts[429] > 110 || counts[500] < 20 || counts[500] > 65 {
		t.Errorf("status counts %v for rates 0.2 and 0.1 of 400", counts)
	}
	if retryAfter == 0 || retryAfter == counts[429] {
		t.Errorf("%d of %d 429s carry Retry-After, want some", retryAfter, counts[429])
	}
	// The sandbox's own paths never fail.
	for range 50 {
		if status, _, raw := h.call(http.MethodGet, "/_sandbox/tasks", nil, nil); status != 200 {
			t.Fatalf("/_sandbox/tasks: HTTP %d %s", status, raw)
		}
	}
}

func TestFaultsLetAClientRetry(t *testing.T) {
	h := newHarness(t, Config{Rate5xx: 0.5})
	id := ""
	for id == "" {
		status, _, raw := h.call(http.MethodPost, api.OpText2Video.Path(), samples[api.OpText2Video], nil)
		if status == 200 {
			id = strings.Split(strings.Split(string(raw), `"task_id":"`)[1], `"`)[0]
		}
	}
	var slept []time.Duration
	c, err := api.NewClient(h.ts.URL, testToken, api.WithSleep(func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}), api.WithRetry(api.RetryPolicy{Attempts: 20, Base: time.Millisecond, Max: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := c.Get(t.Context(), id); err != nil {
			t.Fatalf("a retrying client still failed: %v", err)
		}
	}
	if len(slept) == 0 {
		t.Error("no retry was needed at rate 0.5")
	}
}

func TestSlowResponsesTakeClockTime(t *testing.T) {
	h := newHarness(t, Config{SlowRate: 1, SlowDelay: 3 * time.Second})
	before := h.clock.Now()
	if status, _, _ := h.call(http.MethodGet, "/ent/v2/tasks/1/creations", nil, nil); status != 404 {
		t.Errorf("slow request answered %d", status)
	}
	if d := h.clock.Now().Sub(before); d != 3*time.Second {
		t.Errorf("slow response took %s of clock time, want 3s", d)
	}
	h.call(http.MethodGet, "/_sandbox/tasks", nil, nil)
	if d := h.clock.Now().Sub(before); d != 3*time.Second {
		t.Errorf("the sandbox's own path was slowed")
	}
}

func TestConfigIsChecked(t *testing.T) {
	for _, cfg := range []Config{{FailRate: 1.5}, {Rate429: -1}, {Rate429: 0.6, Rate5xx: 0.6}, {Speed: -1}, {MaxConcurrent: -1}} {
		if s, err := New(cfg); err == nil {
			_ = s.Close()
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestListen(t *testing.T) {
	base, srv, stop, err := Listen(t.Context(), "", Config{Clock: NewFakeClock(t0), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") || srv == nil {
		t.Errorf("base URL %q", base)
	}
	c, err := api.NewClient(base, EmbeddedToken, api.WithRetry(api.RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.Create(t.Context(), api.OpReference2Image, samples[api.OpReference2Image])
	if err != nil {
		t.Fatal(err)
	}
	if r, err := c.Get(t.Context(), task.Identifier()); err != nil || r.State != api.StateCreated {
		t.Errorf("get: %v %+v", err, r)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := c.Get(t.Context(), task.Identifier()); err == nil {
		t.Error("still serving after stop")
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80"} {
		if _, _, _, err := Listen(t.Context(), addr, Config{}); err == nil {
			t.Errorf("Listen(%q) accepted a non-loopback address", addr)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	base, _, stop, err = Listen(ctx, "0.0.0.0:0", Config{AllowRemote: true})
	if err != nil {
		t.Fatalf("AllowRemote: %v", err)
	}
	cancel()
	if err := stop(); err != nil {
		t.Errorf("stop after cancel: %v", err)
	}
	if _, err := http.Get(base + "/_sandbox/tasks"); err == nil {
		t.Error("still serving after the context ended")
	}
}
