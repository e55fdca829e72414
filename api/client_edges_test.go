package api

import (
	"context"
	"io"
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
