package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A read the service refused for a reason that will not change (bad
// request, no key, no such task, …) is sent once; only 429 and 5xx are
// temporary and read again.
func TestOnlyTemporaryReadFailuresAreSentAgain(t *testing.T) {
	cases := []struct {
		status    int
		temporary bool
	}{
		{400, false}, {401, false}, {403, false}, {404, false}, {409, false}, {422, false},
		{429, true}, {500, true}, {502, true}, {503, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			var calls atomic.Int32
			c2 := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.WriteHeader(c.status)
				fmt.Fprintf(w, `{"code":%d,"reason":"X","message":"no"}`, c.status)
			}, recordSleep(new([]time.Duration)), WithRetry(RetryPolicy{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond}))
			for name, read := range map[string]func() error{
				"task": func() error { _, err := c2.Get(context.Background(), "1"); return err },
				"job":  func() error { _, err := c2.GetOneClick(context.Background(), "1"); return err },
			} {
				calls.Store(0)
				err := read()
				e, ok := AsError(err)
				if !ok || e.Status != c.status {
					t.Fatalf("%s read: %v", name, err)
				}
				if e.Temporary() != c.temporary {
					t.Errorf("%s read: Temporary() = %v, want %v", name, e.Temporary(), c.temporary)
				}
				want := int32(1)
				if c.temporary {
					want = 3
				}
				if calls.Load() != want {
					t.Errorf("%s read answered %d sent %d times, want %d", name, c.status, calls.Load(), want)
				}
			}
		})
	}
}

// No creation of any kind is sent twice after a 5xx or a 429: the service
// may have made the task before it failed to answer.
func TestNoCreationIsSentTwice(t *testing.T) {
	for _, status := range []int{500, 503, 429} {
		var calls atomic.Int32
		c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(status)
		}, recordSleep(new([]time.Duration)), WithRetry(RetryPolicy{Attempts: 5, Base: time.Millisecond, Max: time.Millisecond}))
		for name, create := range map[string]func() error{
			"create": func() error {
				_, err := c.Create(context.Background(), OpGeneralOneClick, map[string]any{})
				return err
			},
			"edit": func() error {
				_, err := c.EditScene(context.Background(), "j", EditSceneRequest{JobID: "s", Prompt: "p"})
				return err
			},
			"compose": func() error {
				_, err := c.Compose(context.Background(), "j", ComposeRequest{JobIDs: []string{"s"}})
				return err
			},
			"cancel": func() error { return c.Cancel(context.Background(), "t") },
		} {
			calls.Store(0)
			if err := create(); err == nil {
				t.Fatalf("%s %d: no error", name, status)
			}
			if calls.Load() != 1 {
				t.Errorf("%s answered %d was sent %d times", name, status, calls.Load())
			}
		}
	}
}

// keyEchoingTransport fails every request with an error quoting the
// Authorization header, as a careless proxy or transport might.
type keyEchoingTransport struct{ calls atomic.Int32 }

func (k *keyEchoingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	k.calls.Add(1)
	return nil, errors.New("proxy refused request with header " + r.Header.Get("Authorization"))
}

// The key never appears in the error that ends a request, whether the
// transport failed once (a creation) or on every attempt (a read).
func TestKeyRedactedFromTheFinalTransportError(t *testing.T) {
	tr := &keyEchoingTransport{}
	c, err := NewClient("https://svc.example", "secret-key-123", WithHTTPClient(&http.Client{Transport: tr}),
		recordSleep(new([]time.Duration)), WithRetry(RetryPolicy{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"read":     func() error { _, err := c.Get(context.Background(), "1"); return err },
		"creation": func() error { _, err := c.Create(context.Background(), OpText2Video, map[string]any{}); return err },
		"job read": func() error { _, err := c.GetOneClick(context.Background(), "1"); return err },
	} {
		err := call()
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if strings.Contains(err.Error(), "secret-key-123") {
			t.Errorf("%s: the key is in the error: %v", name, err)
		}
		if !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("%s: the error no longer says what it was: %v", name, err)
		}
		var ne *NetworkError
		if !errors.As(err, &ne) {
			t.Errorf("%s: redaction lost the network error: %T", name, err)
		}
	}
	if tr.calls.Load() < 3 {
		t.Errorf("the read was not retried before its final error (%d calls)", tr.calls.Load())
	}
}

// A read cut by the caller's context ends with no retry and no key.
func TestCancelledReadIsNotRetried(t *testing.T) {
	var calls atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		cancel()
		w.WriteHeader(503)
		io.WriteString(w, `{"code":503,"reason":"X","message":"busy"}`)
	}, recordSleep(new([]time.Duration)))
	if _, err := c.Get(ctx, "1"); err == nil || calls.Load() != 1 {
		t.Errorf("err %v after %d calls", err, calls.Load())
	}
}
