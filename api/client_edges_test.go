package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// deadlineTransport answers every request with body and keeps the
// deadline of its context.
type deadlineTransport struct {
	body     string
	deadline time.Time
	has      bool
}

func (d *deadlineTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	d.deadline, d.has = r.Context().Deadline()
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(d.body)), Request: r}, nil
}

// By default a request that hangs is given up after a minute.
func TestDefaultTimeoutIsAMinute(t *testing.T) {
	tr := &deadlineTransport{body: `{"id":"t1","state":"processing"}`}
	c, err := NewClient("https://svc.example", "key-12345678", WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Get(context.Background(), "t1"); err != nil {
		t.Fatal(err)
	}
	if left := tr.deadline.Sub(start); !tr.has || left < 59*time.Second || left > 61*time.Second {
		t.Errorf("the request's deadline is %v away (set %v), want a minute", left, tr.has)
	}
}

// A read whose answer names no id is the task asked for.
func TestReadWithoutAnIDIsTheTaskAskedFor(t *testing.T) {
	tr := &deadlineTransport{body: `{"state":"processing"}`}
	c, _ := NewClient("https://svc.example", "key-12345678", WithHTTPClient(&http.Client{Transport: tr}))
	res, err := c.Get(context.Background(), "t1")
	if err != nil || res.ID != "t1" {
		t.Errorf("read: %+v, %v", res, err)
	}
}

// A retry policy without steps retries at once; a client without a
// timeout (0) sets no deadline.
func TestRetryWithoutStepsAndNoTimeout(t *testing.T) {
	s := &subjectServer{answers: []string{"503", `{"id":"t1","state":"processing"}`}}
	c := subjectClient(t, s)
	c = c.With(WithRetry(RetryPolicy{Attempts: 2}), WithTimeout(0))
	res, err := c.Get(context.Background(), "t1")
	if err != nil || res.State != "processing" || len(s.requests) != 2 {
		t.Errorf("read: %+v, %v after %d requests; want it read again at once", res, err, len(s.requests))
	}
}

// headerTransport answers every request with body and keeps its headers.
type headerTransport struct {
	body    string
	headers []http.Header
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h.headers = append(h.headers, r.Header.Clone())
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(h.body)), Request: r}, nil
}

// A request with a body says it is JSON; one without says nothing.
func TestOnlyABodyIsDeclaredJSON(t *testing.T) {
	tr := &headerTransport{body: `{"id":"s1","state":"processing"}`}
	c, _ := NewClient("https://svc.example", "key-12345678", WithHTTPClient(&http.Client{Transport: tr}))
	if _, err := c.CreateSubject(context.Background(), map[string]any{"name": "Mia"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	if got := tr.headers[0].Get("Content-Type"); got != "application/json" {
		t.Errorf("a POST declared %q", got)
	}
	if got := tr.headers[1].Get("Content-Type"); got != "" {
		t.Errorf("a GET declared %q", got)
	}
}

// failingTransport fails every request with its error.
type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

// A key of the shortest secret length (8) is redacted from a transport's
// error like any longer one.
func TestShortestSecretKeyIsRedacted(t *testing.T) {
	key := strings.Repeat("k", MinSecret)
	c, _ := NewClient("https://svc.example", key, WithRetry(RetryPolicy{Attempts: 1}),
		WithHTTPClient(&http.Client{Transport: failingTransport{errors.New("proxy refused token " + key)}}))
	_, err := c.Get(context.Background(), "t1")
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("error %v", err)
	}
}

// A request that never reached the service names the host it dialled, as
// the URL spells it; without one, the address dialled; without that, the
// service.
func TestUnreachedHostNamesWhatWasDialled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c, _ := NewClient(fmt.Sprintf("http://localhost:%d", port), "key-12345678", WithRetry(RetryPolicy{Attempts: 1}))
	_, err = c.Get(context.Background(), "t1")
	if host, ok := UnreachedHost(err); !ok || host != fmt.Sprintf("localhost:%d", port) {
		t.Errorf("UnreachedHost = %q, %v; want the URL's localhost:%d (%v)", host, ok, port, err)
	}
	addr := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 443}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&NetworkError{Err: &net.OpError{Op: "dial", Net: "tcp", Addr: addr, Err: errors.New("refused")}}, "10.0.0.1:443"},
		{&NetworkError{Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("refused")}}, "the service"},
	} {
		if host, ok := UnreachedHost(c.err); !ok || host != c.want {
			t.Errorf("UnreachedHost(%v) = %q, %v; want %q", c.err, host, ok, c.want)
		}
	}
}

// A callback's Date may be up to maxSkew before or after now, not more.
func TestCallbackDateSkewBound(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		offset time.Duration
		ok     bool
	}{
		{-5 * time.Minute, true}, {-5*time.Minute - time.Second, false},
		{5 * time.Minute, true}, {5*time.Minute + time.Second, false},
	} {
		req, _ := http.NewRequest(http.MethodPost, "https://hook.example/cb", strings.NewReader(`{"id":"t1"}`))
		SignCallback(req, "tok", now.Add(c.offset))
		if err := VerifyCallback(req, "tok", now, 5*time.Minute); (err == nil) != c.ok {
			t.Errorf("a callback dated %v from now: %v, want accepted %v", c.offset, err, c.ok)
		}
	}
}
